/**
 * The three structural violations of MindDR's report format reward (§5.3, Eq. 11), each a
 * binary indicator detected by rules:
 *
 * - v_tag: the final answer is not properly enclosed in `<final_answer>` tags. Dossier's report
 *   writers do not use the tag, so by default (`tag: null`) v_tag only asks that a final report
 *   exists; with a tag name, the raw completion of the last call of the answering role must hold
 *   exactly one opening and one closing tag, in that order, around non-blank text.
 * - v_md: Markdown formatting errors — "list numbering, table rendering, etc.": an ordered list
 *   whose written numbers are neither consecutive from its first number nor all equal (lazy
 *   numbering renders correctly), a pipe table the table check finds invalid, or a skipped
 *   heading level.
 * - v_ref: citation formatting errors — a numbered citation with no entry in the reference
 *   list, an evidence id left in the text (`[E12]`, which the citation pass should have
 *   numbered), or a `[citation needed]` flag.
 *
 * What counts as a Markdown or citation error beyond the paper's examples is our choice.
 */

import { Lexer, type Token, type Tokens } from "marked";
import { DossierError } from "../../core/errors.ts";
import { checkHeadings } from "../../eval/checks/headings.ts";
import { checkTables } from "../../eval/checks/tables.ts";
import { markerNumbers } from "../../eval/fact/extract.ts";
import { splitReferences } from "../../eval/fact/references.ts";

/** One detected problem. */
export interface FormatProblem {
  kind:
    | "final-answer-tag"
    | "list-numbering"
    | "table"
    | "heading-level"
    | "citation-unresolved"
    | "raw-evidence-id"
    | "citation-needed";
  message: string;
}

function listProblems(tokens: readonly Token[], out: FormatProblem[]): void {
  for (const token of tokens) {
    if (token.type === "list") {
      const list = token as Tokens.List;
      if (list.ordered) {
        const written = list.items.map((item) => Number(/^\s*(\d+)[.)]/.exec(item.raw)?.[1] ?? Number.NaN));
        const first = written[0]!;
        const consecutive = written.every((n, i) => n === first + i);
        const lazy = written.every((n) => n === first);
        if (!consecutive && !lazy)
          out.push({ kind: "list-numbering", message: `an ordered list is numbered ${written.join(", ")}` });
      }
      for (const item of list.items) listProblems(item.tokens, out);
    } else if ("tokens" in token && Array.isArray(token.tokens)) {
      listProblems(token.tokens, out);
    }
  }
}

/** The Markdown formatting problems of a report (v_md = 1 when there is any). */
export function markdownProblems(markdown: string): FormatProblem[] {
  const out: FormatProblem[] = [];
  listProblems(new Lexer().lex(markdown), out);
  for (const table of checkTables(markdown).tables) {
    if (!table.valid)
      out.push({ kind: "table", message: `table at line ${table.startLine}: ${table.problems[0]!.message}` });
  }
  for (const problem of checkHeadings(markdown).problems) {
    if (problem.kind === "skipped-level") out.push({ kind: "heading-level", message: problem.message });
  }
  return out;
}

const MARKER = /\[\^?(\d+(?:\s*[-–,，、;]\s*\d+)*)(?:†[^\]\n]*)?\](?![(:])/g;
const EVIDENCE_ID = /\[\s*E[1-9]\d*(?:\s*[,;]\s*E[1-9]\d*)*\s*\]/g;

/** The citation formatting problems of a report (v_ref = 1 when there is any). */
export function citationProblems(markdown: string): FormatProblem[] {
  const out: FormatProblem[] = [];
  const { body, references } = splitReferences(markdown);
  const prose = body.replace(/```[\s\S]*?```/g, " ");
  const missing = new Set<number>();
  for (const m of prose.matchAll(MARKER))
    for (const n of markerNumbers(m[1]!)) if (!references.has(n)) missing.add(n);
  if (missing.size > 0)
    out.push({
      kind: "citation-unresolved",
      message: `citation${missing.size > 1 ? "s" : ""} ${[...missing].join(", ")} without a reference entry`,
    });
  const raw = prose.match(EVIDENCE_ID);
  if (raw)
    out.push({
      kind: "raw-evidence-id",
      message: `evidence ids left in the text: ${raw.slice(0, 3).join(" ")}`,
    });
  if (/\[citation needed\]/i.test(prose))
    out.push({ kind: "citation-needed", message: "a [citation needed] flag" });
  return out;
}

/**
 * The final-answer problem of a completion: with `tag` (e.g. "final_answer"), exactly one
 * `<tag>…</tag>` around non-blank text; without, only that the answer exists.
 */
export function finalAnswerProblems(answer: string | null, tag: string | null): FormatProblem[] {
  if (answer === null || answer.trim() === "")
    return [{ kind: "final-answer-tag", message: "no final answer" }];
  if (tag === null) return [];
  if (!/^[A-Za-z_][\w-]*$/.test(tag)) throw new DossierError("INPUT_INVALID", `not a tag name: ${tag}`);
  const opens = answer.split(`<${tag}>`).length - 1;
  const closes = answer.split(`</${tag}>`).length - 1;
  const inner = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(answer)?.[1];
  if (opens !== 1 || closes !== 1 || inner === undefined || inner.trim() === "")
    return [
      { kind: "final-answer-tag", message: `the answer is not enclosed in one <${tag}>…</${tag}> pair` },
    ];
  return [];
}
