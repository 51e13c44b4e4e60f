/**
 * Dense vectors of chunks in a sqlite-vec `vec0` table (`chunk_vectors`, cosine distance,
 * rowid = chunk id). The table is created when the first embeddings are stored, with their
 * dimension; the embedding model and dimension are recorded in `meta`, and a different
 * model or dimension drops all vectors so every chunk is embedded again.
 */

import type { DatabaseSync } from "node:sqlite";
import { DossierError } from "../../core/errors.ts";

/** The largest `k` sqlite-vec answers in one KNN query. */
export const MAX_KNN = 4096;

/** The model whose vectors a corpus holds. */
export interface VectorModel {
  model: string;
  dims: number;
}

/** One chunk's vector. */
export interface ChunkVector {
  chunkId: number;
  vector: Float32Array;
}

/** True when the corpus has a vector table. */
export function vectorTableExists(db: DatabaseSync): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'chunk_vectors'").get() !== undefined;
}

/** The model of the stored vectors, if any. */
export function vectorModel(db: DatabaseSync): VectorModel | undefined {
  const rows = db
    .prepare("SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_dims')")
    .all() as { key: string; value: string }[];
  const model = rows.find((r) => r.key === "embedding_model")?.value;
  const dims = Number(rows.find((r) => r.key === "embedding_dims")?.value);
  return model && Number.isInteger(dims) && vectorTableExists(db) ? { model, dims } : undefined;
}

/** Drops the vector table and its model; every chunk is marked as not embedded. */
export function dropVectorTable(db: DatabaseSync): void {
  db.exec("DROP TABLE IF EXISTS chunk_vectors");
  db.exec("DELETE FROM meta WHERE key IN ('embedding_model', 'embedding_dims')");
  db.exec("UPDATE chunks SET embedded = 0 WHERE embedded = 1");
}

/** Makes the vector table hold `model` vectors of `dims` numbers; returns true when it was (re)created. */
export function prepareVectorTable(db: DatabaseSync, target: VectorModel): boolean {
  if (!Number.isInteger(target.dims) || target.dims < 1 || target.dims > 8192) {
    throw new DossierError("PROVIDER_ERROR", `embedding dimension ${target.dims} is not usable`);
  }
  const current = vectorModel(db);
  if (current && current.model === target.model && current.dims === target.dims) return false;
  dropVectorTable(db);
  db.exec(
    `CREATE VIRTUAL TABLE chunk_vectors USING vec0 (embedding float[${target.dims}] distance_metric=cosine)`,
  );
  const put = db.prepare(
    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  );
  put.run("embedding_model", target.model);
  put.run("embedding_dims", String(target.dims));
  return true;
}

/** Stores vectors and marks their chunks as embedded. */
export function storeVectors(db: DatabaseSync, vectors: readonly ChunkVector[]): void {
  const insert = db.prepare("INSERT INTO chunk_vectors (rowid, embedding) VALUES (?, ?)");
  const mark = db.prepare("UPDATE chunks SET embedded = 1 WHERE id = ?");
  for (const { chunkId, vector } of vectors) {
    insert.run(BigInt(chunkId), vector);
    mark.run(chunkId);
  }
}

/** The `k` chunks nearest to `vector` (cosine distance, ascending). */
export function nearestChunks(
  db: DatabaseSync,
  vector: Float32Array,
  k: number,
): { chunkId: number; distance: number }[] {
  const rows = db
    .prepare("SELECT rowid, distance FROM chunk_vectors WHERE embedding MATCH ? AND k = ? ORDER BY distance")
    .all(vector, Math.min(Math.max(1, k), MAX_KNN)) as { rowid: number; distance: number }[];
  return rows
    .map((r) => ({ chunkId: Number(r.rowid), distance: r.distance }))
    .sort((a, b) => a.distance - b.distance || a.chunkId - b.chunkId);
}
