/**
 * Schema of a corpus index: its own SQLite file (`<home>/corpus/<name>.db`) with its own
 * migrations and schema version (`user_version`), separate from the main store.
 *
 * - `documents`: one row per indexed file (path relative to the root, content hash).
 * - `chunks`: the chunk text, anchor, heading path, page, token count (`length`), whether it
 *   has an embedding, and the ids of its distinct terms (int32 little-endian, for deletion).
 * - `terms` / `postings`: the inverted index BM25 is computed from — one posting per (term,
 *   chunk) with the term frequency `tf` and the chunk length `dl` (quantised as Lucene's norms,
 *   denormalised so scoring reads postings only). Document frequency is the number of postings
 *   of a term. Terms are the output of the corpus's analyzer (`meta.analyzer`).
 * - `corpus_stats`: chunk count and total length (N and avgdl of BM25).
 * - `chunks_fts`: FTS5 over the same terms (contentless, `ascii` tokenizer, which keeps our
 *   already-normalised terms byte for byte), used for required phrases.
 * - `meta`: root folder, index settings, analyzer, embedding model and dimensions.
 *
 * The sqlite-vec table `chunk_vectors` is created on the first hybrid indexing, when the
 * embedding dimension is known (see vectors.ts). Never edit a released migration: append one.
 */

/** Migrations in order; index 0 is version 1. */
export const CORPUS_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

  CREATE TABLE documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ms INTEGER NOT NULL,
    indexed_at TEXT NOT NULL
  );

  CREATE TABLE chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    document_id INTEGER NOT NULL REFERENCES documents (id),
    ordinal INTEGER NOT NULL,
    anchor TEXT NOT NULL,
    heading_path TEXT NOT NULL,
    page INTEGER,
    length INTEGER NOT NULL,
    embedded INTEGER NOT NULL DEFAULT 0,
    text TEXT NOT NULL,
    term_ids BLOB NOT NULL
  );
  CREATE INDEX chunks_by_document ON chunks (document_id, ordinal);
  CREATE INDEX chunks_not_embedded ON chunks (id) WHERE embedded = 0;

  CREATE TABLE terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);

  CREATE TABLE postings (
    term_id INTEGER NOT NULL,
    chunk_id INTEGER NOT NULL,
    tf INTEGER NOT NULL,
    dl INTEGER NOT NULL,
    PRIMARY KEY (term_id, chunk_id)
  ) WITHOUT ROWID;

  CREATE TABLE corpus_stats (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    chunk_count INTEGER NOT NULL,
    total_length INTEGER NOT NULL
  );
  INSERT INTO corpus_stats (id, chunk_count, total_length) VALUES (1, 0, 0);

  CREATE VIRTUAL TABLE chunks_fts USING fts5 (tokens, content = '', contentless_delete = 1, tokenize = 'ascii');
  `,
];

/** The corpus schema version this code writes. */
export const CORPUS_SCHEMA_VERSION = CORPUS_MIGRATIONS.length;
