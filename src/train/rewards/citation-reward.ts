/**
 * MindDR's citation reward (§5.3, Eq. 10):
 *
 *     R_cite = +0.1  if n_gen ≥ 0.7 n_ref and n_valid ≥ 0.7 n_ref
 *              −0.1  if n_gen ≥ 0.7 n_ref and n_valid < 0.7 n_ref
 *              −1    if n_gen < 0.7 n_ref
 *
 * with n_gen the citations of the generated report, n_ref those of the reference report and
 * n_valid the generated citations whose description is relevant to the cited passage.
 *
 * Our reading of what the paper leaves open: a citation is a (statement, numbered reference
 * with a URL) pair, extracted by the same rules as FACT (`eval/fact/extract.ts`), so a statement
 * citing [1, 2] is two citations and a local document (no URL) is none. The cited passages of a
 * citation are the run's evidence excerpts from sources with that URL. Relevance is pluggable;
 * by default it is lexical — the share of the statement's content words found in those passages
 * (`overlapShare`, the grounding check's measure), 0 without a passage — and a citation is valid
 * when its relevance is ≥ τ (default 0.3, the grounding check's threshold; the paper says
 * "exceeds").
 */

import { extractCitations } from "../../eval/fact/extract.ts";
import { trimUrl } from "../../eval/fact/references.ts";
import { overlapShare } from "../../eval/grounding.ts";
import type { RecordedRun } from "../recorded-run.ts";

/** The share of n_ref that n_gen and n_valid must reach. */
export const CITATION_RATIO = 0.7;
/** The default relevance threshold τ. */
export const DEFAULT_RELEVANCE_THRESHOLD = 0.3;

/** The counts Eq. 10 compares. */
export interface CitationCounts {
  generated: number;
  reference: number;
  valid: number;
}

/** Eq. 10. */
export function citationReward(n: CitationCounts, ratio = CITATION_RATIO): number {
  const needed = ratio * n.reference;
  if (n.generated < needed) return -1;
  return n.valid >= needed ? 0.1 : -0.1;
}

/** One citation of a report. */
export interface ReportCitation {
  /** The citing statement, markers removed. */
  fact: string;
  /** The citation number. */
  number: number;
  url: string;
}

/** The citations of a Markdown report (see the module comment). */
export function reportCitations(markdown: string): ReportCitation[] {
  return extractCitations(markdown).triples.map((t) => ({ fact: t.fact, number: t.ref_idx, url: t.url }));
}

/** How relevant a citation's statement is to the passages it cites (higher is more relevant). */
export type CitationRelevance = (
  citation: ReportCitation,
  passages: readonly string[],
) => Promise<number> | number;

/** The default relevance: the share of the statement's content words found in the passages. */
export const lexicalRelevance: CitationRelevance = (citation, passages) =>
  passages.length === 0 ? 0 : overlapShare(citation.fact, passages.join(" "));

/** The run's evidence excerpts by (trimmed) source URL. */
export function passagesByUrl(run: Pick<RecordedRun, "sources" | "evidence">): Map<string, string[]> {
  const urlOf = new Map(run.sources.filter((s) => s.url).map((s) => [s.id, trimUrl(s.url!)]));
  const out = new Map<string, string[]>();
  for (const e of run.evidence) {
    const url = urlOf.get(e.sourceId);
    if (url) out.set(url, [...(out.get(url) ?? []), e.text]);
  }
  return out;
}

/** A generated citation with its relevance. */
export interface JudgedCitation extends ReportCitation {
  relevance: number;
  valid: boolean;
}

/** n_gen, n_ref and n_valid of a report against a reference report, with each citation's relevance. */
export async function citationCounts(
  report: string,
  reference: string,
  run: Pick<RecordedRun, "sources" | "evidence">,
  options: { relevance?: CitationRelevance; tau?: number } = {},
): Promise<CitationCounts & { citations: JudgedCitation[] }> {
  const relevance = options.relevance ?? lexicalRelevance;
  const tau = options.tau ?? DEFAULT_RELEVANCE_THRESHOLD;
  const passages = passagesByUrl(run);
  const citations = await Promise.all(
    reportCitations(report).map(async (c) => {
      const r = await relevance(c, passages.get(c.url) ?? []);
      return { ...c, relevance: r, valid: r >= tau };
    }),
  );
  return {
    generated: citations.length,
    reference: reportCitations(reference).length,
    valid: citations.filter((c) => c.valid).length,
    citations,
  };
}
