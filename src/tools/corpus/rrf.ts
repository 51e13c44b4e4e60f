/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): each ranked list adds 1 / (k + rank)
 * to an item's score, rank starting at 1, k = 60 by default. Ties are broken by the best
 * (smallest) rank the item reached in any list, then by the order of the lists (an item of the
 * first list before one only in the second), then by id.
 */

/** The constant k of RRF. */
export const RRF_K = 60;

/** A fused item. */
export interface FusedItem {
  id: number;
  score: number;
}

/** Fuses ranked lists of ids (best first) into one ranking, best first. */
export function reciprocalRankFusion(lists: readonly (readonly number[])[], k = RRF_K): FusedItem[] {
  const entries = new Map<number, { score: number; bestRank: number; firstList: number }>();
  lists.forEach((list, listIndex) => {
    list.forEach((id, index) => {
      const rank = index + 1;
      const entry = entries.get(id);
      if (entry) {
        entry.score += 1 / (k + rank);
        entry.bestRank = Math.min(entry.bestRank, rank);
      } else {
        entries.set(id, { score: 1 / (k + rank), bestRank: rank, firstList: listIndex });
      }
    });
  });
  return [...entries]
    .sort(
      ([idA, a], [idB, b]) =>
        b.score - a.score || a.bestRank - b.bestRank || a.firstList - b.firstList || idA - idB,
    )
    .map(([id, entry]) => ({ id, score: entry.score }));
}
