/**
 * The citation pass: turns writer output citing evidence ids (`[E12]`, `[E3, E7]`) into
 * numbered citations (`[1]`, `[1, 2]`) with a References section, so that every number in a
 * final report resolves to a source retrieved in the run.
 *
 * Rules: (a) an id that names unknown evidence, or evidence that was not given to the writer
 * call that produced the text, is dropped (or flagged); bare numeric tokens such as `[3]` are
 * never trusted and are treated the same way; (b) sources are numbered by first appearance,
 * one number per source, reused on repeats; (c) References list number, title, URL or
 * path#anchor, and access date. (d) An evidence token is a citation wherever it stands, code
 * spans and fenced blocks included: inside code it is removed, and a valid one becomes a numbered
 * citation outside the code — a code span that is only the token becomes the citation, any other
 * code is followed by it. Everything else in code (bare numbers included) is left as written.
 */

import type { EvidenceLookup } from "./evidence-registry.ts";
import { reportLabels } from "./report-labels.ts";
import { type Source, sourceLocator } from "./source.ts";

/** One piece of writer output and the evidence ids that writer call was given. */
export interface CitationPart {
  text: string;
  /** Evidence ids placed in the writer's prompt, or "all" for text citing the whole registry. */
  allowed: ReadonlySet<string> | "all";
}

/** Options of {@link citationPass}. */
export interface CitationPassOptions {
  parts: readonly CitationPart[];
  lookup: EvidenceLookup;
  /** `drop` removes invalid citations; `flag` replaces them with `[citation needed]`. Default drop. */
  mode?: "drop" | "flag";
  /** Heading text of the references section. Default: the language's ("References"). */
  referencesHeading?: string;
  /** The report's language: its labels in the references section (report-labels.ts). */
  language?: string;
  /** Markdown heading level of the references section. Default 2. */
  headingLevel?: number;
  /** Joins parts into the body. Default a blank line. */
  separator?: string;
}

/** One entry of the References section. */
export interface Reference {
  number: number;
  sourceId: string;
  kind: Source["kind"];
  title: string;
  /** URL, or path with its `#anchor`. */
  locator: string;
  /** Access date, YYYY-MM-DD. */
  accessed: string;
}

/** A citation that was dropped or flagged. */
export interface CitationIssue {
  /** Index of the part it was found in. */
  part: number;
  /** The token as written. */
  token: string;
  /** The offending id (`E12`) or number (`3`). */
  id: string;
  reason: "unknown-evidence" | "not-given" | "bare-number";
}

/** Result of {@link citationPass}. */
export interface CitationPassResult {
  /** Each part with numbered citations. */
  parts: string[];
  /** The parts joined. */
  body: string;
  references: Reference[];
  /** The References section as Markdown ("" when nothing is cited). */
  referencesMarkdown: string;
  /** Body followed by the references section. */
  markdown: string;
  issues: CitationIssue[];
  /** Number of citation tokens in the output. */
  citationCount: number;
  /** For each reference number, the evidence ids cited under it (in first-cited order). */
  evidenceByNumber: Record<number, string[]>;
}

/** Placeholder left by `flag` mode. */
export const CITATION_NEEDED = "[citation needed]";

const TOKEN =
  /([ \t]*)(?:[[【［]\s*((?:E\d+)(?:\s*[,;，、]\s*E\d+)*)\s*[\]】］]|\[(\d+(?:\s*[,–-]\s*\d+)*)\](?![(:]))/giu;
/** Fenced blocks (closed or running to the end), double-backtick spans (which may hold a backtick), spans. */
const CODE = /(```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|``[^\n]*?``|`[^`\n]*`)/;
/** An evidence token inside code, with the blanks before it. */
const CODE_TOKEN = /[ \t]*[[【［]\s*((?:E\d+)(?:\s*[,;，、]\s*E\d+)*)\s*[\]】］]/giu;

/** Runs the citation pass over writer output. */
export function citationPass(options: CitationPassOptions): CitationPassResult {
  const mode = options.mode ?? "drop";
  const numberOf = new Map<string, number>();
  const evidenceByNumber: Record<number, string[]> = {};
  const issues: CitationIssue[] = [];
  let citationCount = 0;

  /** The reference numbers of the ids of one token (sorted, distinct); invalid ids become issues. */
  const resolve = (partIndex: number, token: string, eList: string): number[] => {
    const numbers: number[] = [];
    const allowed = options.parts[partIndex]!.allowed;
    for (const raw of eList.split(/\s*[,;，、]\s*/)) {
      const id = raw.toUpperCase();
      const evidence = options.lookup.getEvidence(id);
      const source = evidence ? options.lookup.getSource(evidence.sourceId) : undefined;
      if (!evidence || !source) {
        issues.push({ part: partIndex, token, id, reason: "unknown-evidence" });
        continue;
      }
      if (allowed !== "all" && !allowed.has(id)) {
        issues.push({ part: partIndex, token, id, reason: "not-given" });
        continue;
      }
      let n = numberOf.get(source.id);
      if (n === undefined) {
        n = numberOf.size + 1;
        numberOf.set(source.id, n);
        evidenceByNumber[n] = [];
      }
      if (!evidenceByNumber[n]!.includes(id)) evidenceByNumber[n]!.push(id);
      if (!numbers.includes(n)) numbers.push(n);
    }
    return numbers.sort((a, b) => a - b);
  };
  /** A numbered citation, or what an invalid token leaves (nothing, or the flag). */
  const citation = (numbers: readonly number[]): string => {
    if (numbers.length > 0) {
      citationCount++;
      return `[${numbers.join(", ")}]`;
    }
    return mode === "flag" ? CITATION_NEEDED : "";
  };

  const rewriteToken = (partIndex: number, lead: string, whole: string, eList?: string, bare?: string) => {
    const token = whole.slice(lead.length);
    if (bare !== undefined) {
      for (const n of bare.split(/\s*[,–-]\s*/))
        issues.push({ part: partIndex, token, id: n, reason: "bare-number" });
      return mode === "flag" ? `${lead}${CITATION_NEEDED}` : "";
    }
    const cited = citation(resolve(partIndex, token, eList ?? ""));
    return cited ? `${lead}${cited}` : "";
  };

  /**
   * Code with evidence tokens: the tokens leave the code and their citation stands outside it —
   * in place of a code span that held only the token, else right after the span or fence.
   */
  const rewriteCode = (partIndex: number, code: string): string => {
    const found = [...code.matchAll(CODE_TOKEN)];
    if (found.length === 0) return code;
    const numbers = new Set<number>();
    for (const m of found) for (const n of resolve(partIndex, m[0].trim(), m[1]!)) numbers.add(n);
    const cited = citation([...numbers].sort((a, b) => a - b));
    const stripped = code.replace(CODE_TOKEN, "");
    if (!code.includes("\n")) {
      // An inline span: empty once the token is gone, it gives way to the citation.
      const inner = stripped.replace(/^(`+|~~~)|(`+|~~~)$/g, "");
      if (!inner.trim()) return cited;
      return cited ? `${stripped} ${cited}` : stripped;
    }
    if (!cited) return stripped;
    // A fence: the citation goes on the line after the closing fence (closing an unclosed one).
    const marker = code.slice(0, 3);
    const closed = stripped.length >= 6 && stripped.trimEnd().endsWith(marker);
    return closed ? `${stripped}\n${cited}` : `${stripped.replace(/\n?$/, "\n")}${marker}\n${cited}`;
  };

  const parts = options.parts.map((part, partIndex) =>
    part.text
      .split(CODE)
      .map((segment, i) =>
        i % 2 === 1
          ? rewriteCode(partIndex, segment)
          : segment.replace(TOKEN, (whole, lead: string, eList?: string, bare?: string) =>
              rewriteToken(partIndex, lead, whole, eList, bare),
            ),
      )
      .join(""),
  );

  const references: Reference[] = [...numberOf.entries()].map(([sourceId, number]) => {
    const source = options.lookup.getSource(sourceId)!;
    const locator = sourceLocator(source);
    const title = source.title.replace(/\s+/g, " ").trim() || locator;
    return { number, sourceId, kind: source.kind, title, locator, accessed: source.fetchedAt.slice(0, 10) };
  });

  const referencesMarkdown = renderReferences(
    references,
    options.referencesHeading ?? reportLabels(options.language).references,
    options.headingLevel,
    options.language,
  );
  const body = parts.join(options.separator ?? "\n\n");
  const markdown = referencesMarkdown ? `${body.trimEnd()}\n\n${referencesMarkdown}` : body;
  return { parts, body, references, referencesMarkdown, markdown, issues, citationCount, evidenceByNumber };
}

/** Renders a References section as Markdown, its labels in `language`; "" for no references. */
export function renderReferences(
  references: readonly Reference[],
  heading = "References",
  level = 2,
  language?: string,
): string {
  if (references.length === 0) return "";
  const lines = references.map((r) => {
    const where = /^https?:\/\/[^\s<>`\\]*$/i.test(r.locator) ? `<${r.locator}>` : codeSpan(r.locator);
    return `${r.number}. ${escapeTitle(titleSentence(r.title))} ${where} (${accessNote(r, language)})`;
  });
  return `${"#".repeat(level)} ${heading}\n\n${lines.join("\n")}\n`;
}

/** The citation numbers found in a final report body (`[1]`, `[2, 5]`), for invariant checks. */
export function citedNumbers(markdown: string): number[] {
  const found = new Set<number>();
  for (const segment of markdown.split(CODE).filter((_, i) => i % 2 === 0)) {
    for (const m of segment.matchAll(/\[(\d+(?:, \d+)*)\](?![(:])/g)) {
      for (const n of m[1]!.split(", ")) found.add(Number(n));
    }
  }
  return [...found].sort((a, b) => a - b);
}

/** A reference title as a sentence: a full stop added only where it ends without punctuation. */
export function titleSentence(title: string): string {
  const t = title.trim();
  return /[.!?:;…。！？：；]$/u.test(t) ? t : `${t}.`;
}

/** "(local document, accessed 2026-03-01)" in the report's language, without the brackets. */
export function accessNote(r: Pick<Reference, "kind" | "accessed">, language?: string): string {
  const l = reportLabels(language);
  return `${r.kind === "local" ? `${l.localDocument}${l.comma}` : ""}${l.accessed(r.accessed)}`;
}

function escapeTitle(title: string): string {
  return title.replace(/([[\]*_`\\])/g, "\\$1").replace(/</g, "&lt;");
}

/** A code span that holds `text` whatever backticks it contains. */
function codeSpan(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = flat.startsWith("`") || flat.endsWith("`") ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}
