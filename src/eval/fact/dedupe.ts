/**
 * Grouping a report's citations by URL and removing repeated statements within each group.
 * The benchmark asks a model which statements say exactly the same thing; here two
 * statements are duplicates when they are equal after Unicode normalisation (NFKC), case
 * folding, whitespace collapsing and dropping trailing punctuation — deterministic and free.
 */

import type { CitationTriple } from "./extract.ts";

/** The comparison key of a statement. */
export function statementKey(fact: string): string {
  return fact
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[\s.,;:!?。，；：！？]+$/u, "")
    .trim();
}

/** Statements per URL, URLs in order of first citation, statements in order, repeats removed. */
export function dedupeByUrl(triples: readonly CitationTriple[]): Map<string, string[]> {
  const groups = new Map<string, { facts: string[]; keys: Set<string> }>();
  for (const t of triples) {
    let group = groups.get(t.url);
    if (!group) {
      group = { facts: [], keys: new Set() };
      groups.set(t.url, group);
    }
    const key = statementKey(t.fact);
    if (group.keys.has(key)) continue;
    group.keys.add(key);
    group.facts.push(t.fact);
  }
  return new Map([...groups].map(([url, g]) => [url, g.facts]));
}
