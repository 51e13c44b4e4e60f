/**
 * Writing and deleting documents of a corpus index: chunk rows, term ids, postings (term
 * frequency and chunk length per term and chunk), FTS5 rows, vectors and the N / total-length
 * statistics BM25 needs. Callers wrap these in a transaction.
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Analyzer } from "./analyzer.ts";
import { luceneLength } from "./bm25.ts";
import { termFrequencies } from "./tokenize.ts";
import type { ChunkInput, DocumentInput } from "./types.ts";

/** What the writer needs: the database, a statement cache, the term-id cache and the analyzer. */
export interface WriteContext {
  db: DatabaseSync;
  /** The corpus's analyzer. */
  analyzer(): Analyzer;
  sql(text: string): StatementSync;
  termIds: Map<string, number>;
  /** Whether the vector table exists (deletions must remove vectors too). */
  hasVectors(): boolean;
  /** ISO timestamp for `indexed_at`. */
  now(): string;
}

/** The text analysed for a chunk: its heading path, then its text. */
export function chunkIndexText(chunk: Pick<ChunkInput, "headingPath" | "text" | "indexText">): string {
  return chunk.indexText ?? [...chunk.headingPath, chunk.text].join("\n");
}

function termId(ctx: WriteContext, term: string): number {
  const cached = ctx.termIds.get(term);
  if (cached !== undefined) return cached;
  const row = ctx.sql("SELECT id FROM terms WHERE term = ?").get(term) as { id: number } | undefined;
  const id = row
    ? row.id
    : Number(
        (ctx.sql("INSERT INTO terms (term) VALUES (?)").run(term) as { lastInsertRowid: number | bigint })
          .lastInsertRowid,
      );
  ctx.termIds.set(term, id);
  return id;
}

function encodeIds(ids: readonly number[]): Uint8Array {
  return new Uint8Array(Int32Array.from(ids).buffer);
}

function decodeIds(blob: Uint8Array): Int32Array {
  return new Int32Array(new Uint8Array(blob).buffer);
}

function addStats(ctx: WriteContext, chunks: number, length: number): void {
  ctx
    .sql(
      "UPDATE corpus_stats SET chunk_count = chunk_count + ?, total_length = total_length + ? WHERE id = 1",
    )
    .run(chunks, length);
}

/** Postings waiting to be inserted: term id, chunk id, tf, dl (Lucene's quantised length) — four numbers per posting. */
export type PostingBuffer = number[];

const POSTINGS_PER_STATEMENT = 64;

/**
 * Inserts buffered postings sorted by (term, chunk), several rows per statement: sorted
 * inserts touch each B-tree page once per batch instead of once per chunk.
 */
export function flushPostings(ctx: WriteContext, buffer: PostingBuffer): void {
  const count = buffer.length / 4;
  const order = Array.from({ length: count }, (_, i) => i);
  order.sort((a, b) => buffer[a * 4]! - buffer[b * 4]! || buffer[a * 4 + 1]! - buffer[b * 4 + 1]!);
  const many = ctx.sql(
    `INSERT INTO postings (term_id, chunk_id, tf, dl) VALUES ${Array(POSTINGS_PER_STATEMENT).fill("(?, ?, ?, ?)").join(", ")}`,
  );
  const one = ctx.sql("INSERT INTO postings (term_id, chunk_id, tf, dl) VALUES (?, ?, ?, ?)");
  const args: number[] = [];
  let i = 0;
  for (; i + POSTINGS_PER_STATEMENT <= count; i += POSTINGS_PER_STATEMENT) {
    args.length = 0;
    for (let j = i; j < i + POSTINGS_PER_STATEMENT; j++) {
      const k = order[j]! * 4;
      args.push(buffer[k]!, buffer[k + 1]!, buffer[k + 2]!, buffer[k + 3]!);
    }
    many.run(...args);
  }
  for (; i < count; i++) {
    const k = order[i]! * 4;
    one.run(buffer[k]!, buffer[k + 1]!, buffer[k + 2]!, buffer[k + 3]!);
  }
  buffer.length = 0;
}

/**
 * Inserts a document and its chunks (chunks without any term are left out); their postings
 * go to `postings`, to be written with {@link flushPostings} in the same transaction. Returns
 * the new document id and chunk ids.
 */
export function insertDocument(
  ctx: WriteContext,
  doc: DocumentInput,
  postings: PostingBuffer,
): { documentId: number; chunkIds: number[] } {
  const { id: documentId } = ctx
    .sql(
      "INSERT INTO documents (path, kind, title, content_hash, size, mtime_ms, indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
    )
    .get(doc.path, doc.kind, doc.title, doc.contentHash, doc.size, doc.mtimeMs, ctx.now()) as { id: number };
  const insertChunk = ctx.sql(
    "INSERT INTO chunks (document_id, ordinal, anchor, heading_path, page, length, text, term_ids) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
  );
  const insertFts = ctx.sql("INSERT INTO chunks_fts (rowid, tokens) VALUES (?, ?)");
  const chunkIds: number[] = [];
  const analyzer = ctx.analyzer();
  let totalLength = 0;
  for (const chunk of doc.chunks) {
    const tokens = analyzer.analyze(chunkIndexText(chunk));
    if (tokens.length === 0) continue;
    const frequencies = termFrequencies(tokens);
    const ids = [...frequencies.keys()].map((term) => termId(ctx, term));
    const { id } = insertChunk.get(
      documentId,
      chunkIds.length,
      chunk.anchor,
      JSON.stringify(chunk.headingPath),
      chunk.page ?? null,
      tokens.length,
      chunk.text,
      encodeIds(ids),
    ) as { id: number };
    let i = 0;
    const dl = luceneLength(tokens.length);
    for (const tf of frequencies.values()) postings.push(ids[i++]!, id, tf, dl);
    insertFts.run(id, tokens.join(" "));
    chunkIds.push(id);
    totalLength += tokens.length;
  }
  addStats(ctx, chunkIds.length, totalLength);
  return { documentId, chunkIds };
}

/** Deletes a document, its chunks, postings, FTS rows and vectors; returns the chunks removed. */
export function deleteDocument(ctx: WriteContext, documentId: number): number {
  const rows = ctx.sql("SELECT id, length, term_ids FROM chunks WHERE document_id = ?").all(documentId) as {
    id: number;
    length: number;
    term_ids: Uint8Array;
  }[];
  const deletePosting = ctx.sql("DELETE FROM postings WHERE term_id = ? AND chunk_id = ?");
  const deleteFts = ctx.sql("DELETE FROM chunks_fts WHERE rowid = ?");
  const deleteVector = ctx.hasVectors() ? ctx.sql("DELETE FROM chunk_vectors WHERE rowid = ?") : undefined;
  let totalLength = 0;
  for (const row of rows) {
    for (const term of decodeIds(row.term_ids)) deletePosting.run(term, row.id);
    deleteFts.run(row.id);
    deleteVector?.run(BigInt(row.id));
    totalLength += row.length;
  }
  ctx.sql("DELETE FROM chunks WHERE document_id = ?").run(documentId);
  ctx.sql("DELETE FROM documents WHERE id = ?").run(documentId);
  addStats(ctx, -rows.length, -totalLength);
  return rows.length;
}
