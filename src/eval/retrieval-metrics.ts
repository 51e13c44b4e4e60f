/**
 * Ranked-retrieval metrics with their standard (trec_eval / pytrec_eval, as used by BEIR)
 * definitions, for one query given its ranking (best first; repeated ids count once, at
 * their first position) and its judgments (document id → grade; grades ≤ 0 are not
 * relevant):
 *
 * - nDCG@k: DCG@k / IDCG@k with DCG@k = Σ_{i=1..k} gain(d_i) / log2(i + 1), gain = the grade
 *   itself (linear gain, graded relevance; not 2^grade − 1), IDCG@k the DCG@k of the judged
 *   documents sorted by grade. 0 when no judged document has a positive grade.
 * - Recall@k: relevant documents in the top k / all relevant documents (0 when none).
 * - MRR@k: 1 / rank of the first relevant document within the top k, else 0.
 *
 * {@link evaluateRetrieval} averages each metric over the judged queries (a judged query
 * without results scores 0).
 */

/** Judgments of one query: document id → grade. */
export type Judgments = ReadonlyMap<string, number>;

function unique(ranking: readonly string[], k: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of ranking) {
    if (out.length >= k) break;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}

/** DCG of gains in rank order, cut at k: Σ gain_i / log2(i + 1). */
export function dcg(gains: readonly number[], k: number): number {
  let sum = 0;
  for (let i = 0; i < Math.min(k, gains.length); i++) sum += gains[i]! / Math.log2(i + 2);
  return sum;
}

/** nDCG@k with linear graded gains. */
export function ndcgAtK(ranking: readonly string[], judgments: Judgments, k: number): number {
  const ideal = [...judgments.values()].filter((g) => g > 0).sort((a, b) => b - a);
  const idcg = dcg(ideal, k);
  if (idcg === 0) return 0;
  const gains = unique(ranking, k).map((id) => Math.max(0, judgments.get(id) ?? 0));
  return dcg(gains, k) / idcg;
}

/** Recall@k. */
export function recallAtK(ranking: readonly string[], judgments: Judgments, k: number): number {
  const relevant = [...judgments.values()].filter((g) => g > 0).length;
  if (relevant === 0) return 0;
  const found = unique(ranking, k).filter((id) => (judgments.get(id) ?? 0) > 0).length;
  return found / relevant;
}

/** Reciprocal rank of the first relevant document within the top k (MRR@k of one query). */
export function mrrAtK(ranking: readonly string[], judgments: Judgments, k: number): number {
  const top = unique(ranking, k);
  const index = top.findIndex((id) => (judgments.get(id) ?? 0) > 0);
  return index < 0 ? 0 : 1 / (index + 1);
}

/** The metrics of one query. */
export interface QueryScores {
  ndcgAt10: number;
  recallAt100: number;
  mrrAt10: number;
}

/** Mean metrics over the judged queries. */
export interface RetrievalScores extends QueryScores {
  /** Judged queries evaluated. */
  queries: number;
  perQuery: Map<string, QueryScores>;
}

/** nDCG@10, Recall@100 and MRR@10 averaged over the queries of `qrels`. */
export function evaluateRetrieval(
  runs: ReadonlyMap<string, readonly string[]>,
  qrels: ReadonlyMap<string, Judgments>,
): RetrievalScores {
  const perQuery = new Map<string, QueryScores>();
  for (const [query, judgments] of qrels) {
    const ranking = runs.get(query) ?? [];
    perQuery.set(query, {
      ndcgAt10: ndcgAtK(ranking, judgments, 10),
      recallAt100: recallAtK(ranking, judgments, 100),
      mrrAt10: mrrAtK(ranking, judgments, 10),
    });
  }
  const n = perQuery.size;
  const mean = (pick: (s: QueryScores) => number) =>
    n === 0 ? 0 : [...perQuery.values()].reduce((sum, s) => sum + pick(s), 0) / n;
  return {
    queries: n,
    ndcgAt10: mean((s) => s.ndcgAt10),
    recallAt100: mean((s) => s.recallAt100),
    mrrAt10: mean((s) => s.mrrAt10),
    perQuery,
  };
}
