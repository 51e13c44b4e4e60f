/**
 * Assembling a refreshed report: a rewritten section goes through the citation pass on its own
 * (only the evidence given to its writer may be cited) and its numbers are then mapped onto the
 * report's numbering — a source keeps the number the earlier version gave it, a new source takes
 * the next free one — so the sections left alone stay byte for byte. A number no section cites
 * any more drops out of the References. Before the report is returned every citation is checked
 * to resolve to evidence held by the new run (CITATION_INVALID otherwise), and the report
 * checks are run on the new body.
 */

import { citationPass, citedNumbers, type Reference, renderReferences } from "../core/citations.ts";
import { DossierError } from "../core/errors.ts";
import type { EvidenceLookup } from "../core/evidence-registry.ts";
import type { Outline } from "../core/outline.ts";
import type { ReportDocument } from "../core/report.ts";
import { safeMarkdown } from "../core/safe-markdown.ts";
import { sourceLocator } from "../core/source.ts";
import { runReportChecks } from "../eval/checks/report-checks.ts";
import { groundingCheck } from "../eval/grounding.ts";
import { reportLabel } from "../kit/language.ts";
import { assembleReport } from "../kit/report-assembly.ts";
import type { RunContext } from "../kit/run-context.ts";

const MARKER = /\[(\d+(?:, \d+)*)\](?![(:])/g;
const CODE = /(```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]*`)/;

/** The report's numbering: a number per source (by the new run's source id), the next free one. */
export class Numbering {
  readonly #numberOf = new Map<string, number>();
  #next: number;

  constructor(initial: ReadonlyMap<string, number>) {
    for (const [sourceId, n] of initial) this.#numberOf.set(sourceId, n);
    this.#next = Math.max(0, ...initial.values()) + 1;
  }

  /** The number of `sourceId`, given the next free one on first use. */
  of(sourceId: string): number {
    let n = this.#numberOf.get(sourceId);
    if (n === undefined) {
      n = this.#next++;
      this.#numberOf.set(sourceId, n);
    }
    return n;
  }

  /** The source of number `n`. */
  sourceOf(n: number): string | undefined {
    for (const [sourceId, m] of this.#numberOf) if (m === n) return sourceId;
    return undefined;
  }
}

/** A rewritten section after the citation pass, in the report's numbering. */
export interface NumberedSection {
  text: string;
  /** Evidence ids behind each number the section cites. */
  evidenceByNumber: Record<number, string[]>;
  dropped: number;
}

/** Runs the citation pass over a section citing evidence ids and renumbers it with `numbering`. */
export function numberSection(
  content: string,
  allowed: ReadonlySet<string>,
  lookup: EvidenceLookup,
  numbering: Numbering,
): NumberedSection {
  const pass = citationPass({ parts: [{ text: content, allowed }], lookup });
  const globalOf = new Map(pass.references.map((r) => [r.number, numbering.of(r.sourceId)]));
  const evidenceByNumber: Record<number, string[]> = {};
  for (const [local, ids] of Object.entries(pass.evidenceByNumber)) {
    const n = globalOf.get(Number(local));
    if (n !== undefined) evidenceByNumber[n] = [...new Set([...(evidenceByNumber[n] ?? []), ...ids])];
  }
  const text = pass.body
    .split(CODE)
    .map((segment, i) =>
      i % 2 === 1
        ? segment
        : segment.replace(MARKER, (_m, list: string) => {
            const numbers = [...new Set(list.split(", ").map((n) => globalOf.get(Number(n)) ?? 0))]
              .filter((n) => n > 0)
              .sort((a, b) => a - b);
            return numbers.length ? `[${numbers.join(", ")}]` : "";
          }),
    )
    .join("");
  return { text, evidenceByNumber, dropped: pass.issues.length };
}

/**
 * The citation problems of a body: a number without a reference, a reference whose source the
 * run does not hold, a number with no evidence, evidence the run does not hold or of another
 * source. Empty when every citation resolves.
 */
export function citationProblems(
  body: string,
  references: readonly Reference[],
  evidenceByNumber: Readonly<Record<number, string[]>>,
  lookup: EvidenceLookup,
): string[] {
  const problems: string[] = [];
  const byNumber = new Map(references.map((r) => [r.number, r]));
  for (const n of citedNumbers(body)) {
    const ref = byNumber.get(n);
    if (!ref) problems.push(`[${n}] has no reference`);
    else if (!lookup.getSource(ref.sourceId)) problems.push(`[${n}] names source ${ref.sourceId}, not held`);
    const ids = evidenceByNumber[n] ?? [];
    if (ids.length === 0) problems.push(`[${n}] has no evidence`);
    for (const id of ids) {
      const e = lookup.getEvidence(id);
      if (!e) problems.push(`[${n}] cites ${id}, not held`);
      else if (ref && e.sourceId !== ref.sourceId) problems.push(`[${n}] cites ${id} of another source`);
    }
  }
  return problems;
}

/** Options of {@link refreshedReport}. */
export interface RefreshedReportOptions {
  title: string;
  outline: Outline;
  body: string;
  numbering: Numbering;
  evidenceByNumber: Record<number, string[]>;
  language: string;
  stopReason: string;
  dropped: number;
}

/** The refreshed report document; throws CITATION_INVALID when a citation does not resolve. */
export function refreshedReport(ctx: RunContext, options: RefreshedReportOptions): ReportDocument {
  const { body, numbering } = options;
  const references: Reference[] = citedNumbers(body).flatMap((number) => {
    const sourceId = numbering.sourceOf(number);
    const s = sourceId ? ctx.evidence.getSource(sourceId) : undefined;
    if (!s) return [];
    return [
      {
        number,
        sourceId: s.id,
        kind: s.kind,
        title: s.title,
        locator: sourceLocator(s),
        accessed: (s.fetchedAt || ctx.currentDate).slice(0, 10),
      },
    ];
  });
  const cited = new Set(references.map((r) => r.number));
  const evidenceByNumber = Object.fromEntries(
    Object.entries(options.evidenceByNumber).filter(([n]) => cited.has(Number(n))),
  ) as Record<number, string[]>;
  const problems = citationProblems(body, references, evidenceByNumber, ctx.evidence);
  if (problems.length) {
    throw new DossierError(
      "CITATION_INVALID",
      `the refreshed report has citations that do not resolve: ${problems.join("; ")}`,
      {
        details: { problems },
      },
    );
  }
  const base = assembleReport(ctx, {
    title: options.title,
    outline: options.outline,
    parts: [],
    language: options.language,
    stopReason: options.stopReason,
  });
  const refs = renderReferences(references, reportLabel("references", options.language));
  const checks = runReportChecks(body, { currentDate: ctx.currentDate, expectedLanguage: options.language });
  const excerpts = new Map<number, string>();
  for (const [n, ids] of Object.entries(evidenceByNumber)) {
    excerpts.set(Number(n), ids.map((id) => ctx.evidence.getEvidence(id)?.text ?? "").join(" "));
  }
  const grounding = groundingCheck(body, excerpts);
  return {
    ...base,
    body,
    markdown: refs ? `${body}\n${safeMarkdown(refs)}` : body,
    references,
    evidenceByNumber,
    checks: {
      ...base.checks,
      citations: {
        kept: citedNumbers(body).length,
        dropped: options.dropped,
        byReason: options.dropped ? { "not-given": options.dropped } : {},
      },
      groundedShare: grounding.share,
      grounding: { sentences: grounding.sentences.length, supported: grounding.supported },
      tables: { ...base.checks.tables, total: checks.tables.total, valid: checks.tables.valid },
      headings: {
        problems: checks.headings.errors,
        details: checks.headings.problems.map((p) => `line ${p.line}: ${p.message}`),
        titles: checks.figures.headings.titles,
      },
      temporal: {
        predictive: checks.figures.temporal.predictive,
        flagged: checks.temporal.flagged.length,
        errorRate: checks.figures.temporal.errorRate,
        details: checks.temporal.flagged.map((f) => f.sentence),
      },
      language: {
        expected: options.language,
        detected: checks.language?.detected ?? "und",
        share: checks.language?.share ?? null,
      },
    },
  };
}
