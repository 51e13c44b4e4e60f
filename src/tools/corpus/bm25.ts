/**
 * BM25 over the corpus postings, with configurable k1 and b (default 0.9 / 0.4, the
 * Lucene/Pyserini defaults). FTS5's own `bm25()` fixes k1 = 1.2 and b = 0.75, so the score is
 * computed here, in one SQL aggregate over the postings of the query terms, as Lucene's
 * BM25Similarity does:
 *
 *   score(q, d) = Σ_t qtf(t) · idf(t) · tf(t,d) / (tf(t,d) + k1 · (1 − b + b · dl(d) / avgdl))
 *   idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
 *
 * N is the number of chunks, df(t) the number of chunks containing t, dl(d) the chunk's token
 * count and avgdl the mean token count. As in Lucene ≥ 8 the constant factor (k1 + 1) of the
 * classic formula is left out (it does not change the ranking), a query term repeated in the
 * query counts that many times (Anserini's bag-of-words boost), and unlike Lucene, lengths are
 * exact rather than quantised to one byte. Ties are broken by chunk id, ascending.
 *
 * Quoted phrases (`"machine learning"`) additionally restrict the candidates to chunks that
 * contain each phrase, found with an FTS5 phrase query over the same tokens.
 */

import type { StatementSync } from "node:sqlite";
import { termFrequencies, tokenize } from "./tokenize.ts";

/** BM25 parameters. */
export interface Bm25Params {
  /** Term-frequency saturation (≥ 0). */
  k1: number;
  /** Length normalisation (0 = none, 1 = full). */
  b: number;
}

/** Lucene/Pyserini defaults: k1 = 0.9, b = 0.4. */
export const DEFAULT_BM25: Bm25Params = { k1: 0.9, b: 0.4 };

/** A chunk and its score. */
export interface ScoredChunk {
  chunkId: number;
  score: number;
}

/** A parsed query: term frequencies of all its tokens, and its quoted phrases as token lists. */
export interface ParsedQuery {
  terms: Map<string, number>;
  phrases: string[][];
}

/** Lucene's BM25 idf. */
export function bm25Idf(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** Tokenises a query and extracts its quoted phrases. */
export function parseQuery(query: string): ParsedQuery {
  const phrases = [...query.matchAll(/"([^"]*)"/g)]
    .map((m) => tokenize(m[1] ?? ""))
    .filter((tokens) => tokens.length > 0);
  return { terms: termFrequencies(tokenize(query)), phrases };
}

/** The FTS5 MATCH expression requiring every phrase (tokens hold letters, marks and digits only). */
export function phraseMatch(phrases: readonly string[][]): string {
  return phrases.map((tokens) => `"${tokens.join(" ")}"`).join(" AND ");
}

const SCORE_SQL = (filtered: boolean) => `
  WITH q (term_id, weight) AS (
    SELECT CAST(value ->> 0 AS INTEGER), CAST(value ->> 1 AS REAL) FROM json_each(:terms)
  )
  SELECT p.chunk_id AS chunkId,
         SUM(q.weight * p.tf / (p.tf + CAST(:k1 AS REAL) * (1.0 - CAST(:b AS REAL) + CAST(:b AS REAL) * p.dl / CAST(:avgdl AS REAL)))) AS score
  FROM q JOIN postings AS p ON p.term_id = q.term_id
  ${filtered ? "WHERE p.chunk_id IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH :phrases)" : ""}
  GROUP BY p.chunk_id
  ORDER BY score DESC, p.chunk_id ASC
  LIMIT :limit`;

/** Statements the scorer runs (from the index's statement cache). */
export type SqlCache = (text: string) => StatementSync;

/** The `limit` best chunks for `query`, best first. */
export function bm25Search(
  sql: SqlCache,
  query: string | ParsedQuery,
  options: Bm25Params & { limit: number },
): ScoredChunk[] {
  const parsed = typeof query === "string" ? parseQuery(query) : query;
  const stats = sql(
    "SELECT chunk_count AS n, total_length AS total FROM corpus_stats WHERE id = 1",
  ).get() as {
    n: number;
    total: number;
  };
  if (stats.n === 0 || parsed.terms.size === 0) return [];
  const avgdl = stats.total / stats.n;
  const lookup = sql("SELECT id FROM terms WHERE term = ?");
  const frequency = sql("SELECT count(*) AS df FROM postings WHERE term_id = ?");
  const weights: [number, number][] = [];
  for (const [term, qtf] of parsed.terms) {
    const row = lookup.get(term) as { id: number } | undefined;
    if (!row) continue;
    const { df } = frequency.get(row.id) as { df: number };
    if (df > 0) weights.push([row.id, qtf * bm25Idf(stats.n, df)]);
  }
  if (weights.length === 0) return [];
  const filtered = parsed.phrases.length > 0;
  const params: Record<string, string | number> = {
    terms: JSON.stringify(weights),
    k1: options.k1,
    b: options.b,
    avgdl,
    limit: options.limit,
  };
  if (filtered) params.phrases = phraseMatch(parsed.phrases);
  return sql(SCORE_SQL(filtered)).all(params) as unknown as ScoredChunk[];
}
