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
 * query counts that many times (Anserini's bag-of-words boost), and dl is quantised to one
 * byte as Lucene's norms are ({@link luceneLength}: exact up to 39, then four significant
 * bits), while avgdl is exact — so with the `english` analyzer the scores reproduce Anserini's
 * BM25 runs. Ties are broken by chunk id, ascending.
 *
 * The query is text, never query syntax: quotation marks, parentheses, `AND`/`OR`/`NOT`/
 * `NEAR`, `*`, `:` and `-` are ordinary characters that the analyzer drops or keeps like any
 * other. Phrases that must occur are given separately (`phrases`), and every term of the FTS5
 * expression built from them is a quoted string.
 */

import type { StatementSync } from "node:sqlite";
import { type Analyzer, DEFAULT_ANALYZER, getAnalyzer } from "./analyzer.ts";
import { termFrequencies } from "./tokenize.ts";

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

/** An analysed query: the frequencies of its terms, and the phrases required, as term lists. */
export interface ParsedQuery {
  terms: Map<string, number>;
  phrases: string[][];
}

/** Options of {@link parseQuery}. */
export interface ParseQueryOptions {
  /** The corpus's analyzer (default `english`). */
  analyzer?: Analyzer;
  /** Phrases each hit must contain (their words in order), given apart from the query text. */
  phrases?: readonly string[];
}

/** Lucene's BM25 idf. */
export function bm25Idf(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/**
 * Lucene's one-byte length norm, decoded (`SmallFloat.byte4ToInt(intToByte4(n))`): lengths
 * below 40 are exact; above, n − 24 keeps its four most significant bits.
 */
export function luceneLength(length: number): number {
  const FREE = 24;
  if (length < FREE) return length;
  const rest = length - FREE;
  const bits = 32 - Math.clz32(rest);
  if (bits < 4) return length;
  const shift = bits - 4;
  return FREE + (rest >>> shift) * 2 ** shift;
}

/** Analyses a query. Its text is never query syntax: quotes and operators are plain characters. */
export function parseQuery(query: string, options: ParseQueryOptions = {}): ParsedQuery {
  const analyzer = options.analyzer ?? getAnalyzer(DEFAULT_ANALYZER);
  const phrases = (options.phrases ?? [])
    .map((phrase) => analyzer.analyze(phrase))
    .filter((terms) => terms.length > 0);
  return { terms: termFrequencies(analyzer.analyze(query)), phrases };
}

/** An FTS5 string: the text in double quotes, inner double quotes doubled. Never an operator. */
export function ftsString(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * The FTS5 MATCH expression requiring every phrase: each term a quoted string, the terms of a
 * phrase joined by `+`, phrases by `AND`.
 */
export function phraseMatch(phrases: readonly string[][]): string {
  return phrases.map((terms) => terms.map(ftsString).join(" + ")).join(" AND ");
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

/** Options of {@link bm25Search}. */
export interface Bm25SearchOptions extends Bm25Params {
  limit: number;
  /** The corpus's analyzer, for a query given as text. */
  analyzer: Analyzer;
}

/** The `limit` best chunks for `query` (text, or analysed with the corpus's analyzer), best first. */
export function bm25Search(
  sql: SqlCache,
  query: string | ParsedQuery,
  options: Bm25SearchOptions,
): ScoredChunk[] {
  const parsed = typeof query === "string" ? parseQuery(query, { analyzer: options.analyzer }) : query;
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
