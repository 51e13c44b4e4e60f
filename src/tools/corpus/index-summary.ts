/**
 * The one-line summary of an indexing run, e.g.
 * `indexed 12 files (3 skipped: 1 binary, 1 corrupt-pdf, 1 symlink-loop; 5 unchanged; 1 removed), 143 chunks, 0.8 s`,
 * naming the PDF pages left out for lack of text:
 * `indexed 1 file (scan.pdf page 11: no extractable text), 4 chunks, 0.2 s`.
 */

import { formatPageList } from "../fetch/pdf-page-text.ts";
import type { IndexSummary } from "./types.ts";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Counts of skip reasons, most frequent first (ties by name). */
export function skipCounts(summary: Pick<IndexSummary, "skipped">): [string, number][] {
  const counts = new Map<string, number>();
  for (const s of summary.skipped) counts.set(s.reason, (counts.get(s.reason) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

/** The summary line (without a newline). */
export function formatIndexSummary(summary: IndexSummary): string {
  const notes: string[] = [];
  if (summary.skipped.length) {
    const reasons = skipCounts(summary).map(([reason, n]) => `${n} ${reason}`);
    notes.push(`${summary.skipped.length} skipped: ${reasons.join(", ")}`);
  }
  if (summary.unchanged) notes.push(`${summary.unchanged} unchanged`);
  if (summary.removed) notes.push(`${summary.removed} removed`);
  if (summary.embedded) notes.push(`${summary.embedded} chunks embedded`);
  for (const { path, pages } of summary.pagesWithoutText ?? []) {
    notes.push(`${path} ${formatPageList(pages)}: no extractable text`);
  }
  const files = `indexed ${plural(summary.indexed, "file")}${notes.length ? ` (${notes.join("; ")})` : ""}`;
  return `${files}, ${plural(summary.chunks, "chunk")}, ${summary.seconds.toFixed(1)} s`;
}
