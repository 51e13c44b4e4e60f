/**
 * Merging the results of several searches: deduplicated by normalised URL, interleaved by rank
 * so every query contributes its best results first.
 */

import { normalizeUrl } from "../../core/url.ts";
import type { SearchResult } from "../types.ts";

/** Merges result lists round-robin by rank, keeping the first occurrence of each URL. */
export function mergeSearchResults(
  lists: readonly (readonly SearchResult[])[],
  limit = Number.POSITIVE_INFINITY,
): SearchResult[] {
  const seen = new Set<string>();
  const merged: SearchResult[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let rank = 0; rank < longest && merged.length < limit; rank++) {
    for (const list of lists) {
      const item = list[rank];
      if (!item) continue;
      const key = normalizeUrl(item.url);
      if (seen.has(key)) continue;
      seen.add(key);
      merged.push(item);
      if (merged.length >= limit) break;
    }
  }
  return merged;
}
