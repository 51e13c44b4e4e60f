/**
 * A corpus index: one SQLite file holding documents, chunks, the BM25 postings, an FTS5 table
 * and (for hybrid retrieval) sqlite-vec vectors. See corpus-schema.ts for the layout and
 * bm25.ts for the scoring. The corpus's analyzer (analyzer.ts) is stored in its metadata
 * (`analyzer`) and used for every write and query; a new corpus gets `english`, one indexed
 * before analyzers were recorded is read with `standard`.
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";
import { type Clock, systemClock } from "../../core/clock.ts";
import { DossierError } from "../../core/errors.ts";
import {
  type Analyzer,
  type AnalyzerName,
  DEFAULT_ANALYZER,
  getAnalyzer,
  isAnalyzerName,
} from "./analyzer.ts";
import { type Bm25Params, bm25Search, type ParsedQuery, parseQuery, type ScoredChunk } from "./bm25.ts";
import { openCorpusDatabase } from "./corpus-db.ts";
import {
  chunkIndexText,
  deleteDocument,
  flushPostings,
  insertDocument,
  type PostingBuffer,
  type WriteContext,
} from "./corpus-writer.ts";
import type { DocumentInput, DocumentKind } from "./types.ts";
import {
  type ChunkVector,
  dropVectorTable,
  nearestChunks,
  prepareVectorTable,
  storeVectors,
  type VectorModel,
  vectorModel,
  vectorTableExists,
} from "./vectors.ts";

/** Options of {@link CorpusIndex.open}. */
export interface CorpusIndexOptions {
  /** File path, or `:memory:`. */
  path: string;
  /** Create the file when missing (default true); false throws NOT_FOUND instead. */
  create?: boolean;
  clock?: Clock;
}

/** A stored document's bookkeeping. */
export interface StoredDocument {
  id: number;
  path: string;
  kind: DocumentKind;
  contentHash: string;
  size: number;
  mtimeMs: number;
}

/** A stored chunk with its document. */
export interface ChunkRecord {
  id: number;
  path: string;
  title: string;
  anchor: string;
  headingPath: string[];
  page?: number;
  text: string;
}

/** Size of a corpus. */
export interface CorpusStats {
  documents: number;
  chunks: number;
  /** Sum of the chunks' token counts. */
  totalLength: number;
}

/** An open corpus index. */
export class CorpusIndex {
  /** Where it lives. */
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #vectorsLoaded: boolean;
  readonly #vectorError: string | undefined;
  readonly #clock: Clock;
  readonly #statements = new Map<string, StatementSync>();
  readonly #ctx: WriteContext;
  #analyzer: Analyzer | undefined;

  private constructor(
    path: string,
    db: DatabaseSync,
    vectors: boolean,
    vectorError: string | undefined,
    clock: Clock,
  ) {
    this.path = path;
    this.#db = db;
    this.#vectorsLoaded = vectors;
    this.#vectorError = vectorError;
    this.#clock = clock;
    this.#ctx = {
      db,
      analyzer: () => this.#currentAnalyzer(),
      sql: (text) => this.#sql(text),
      termIds: new Map(),
      hasVectors: () => this.#vectorsLoaded && vectorTableExists(db),
      now: () => new Date(this.#clock.now()).toISOString(),
    };
  }

  /** Opens (or creates) the index at `options.path`. */
  static open(options: CorpusIndexOptions): CorpusIndex {
    const { db, vectors, vectorError } = openCorpusDatabase(options.path, { create: options.create ?? true });
    return new CorpusIndex(options.path, db, vectors, vectorError, options.clock ?? systemClock);
  }

  #sql(text: string): StatementSync {
    let statement = this.#statements.get(text);
    if (!statement) {
      statement = this.#db.prepare(text);
      this.#statements.set(text, statement);
    }
    return statement;
  }

  #transaction<T>(work: () => T): T {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const result = work();
      this.#db.exec("COMMIT");
      return result;
    } catch (error) {
      this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  #currentAnalyzer(): Analyzer {
    if (!this.#analyzer) {
      const stored = this.getMeta("analyzer");
      const legacy = !stored && this.stats().chunks > 0;
      this.#analyzer = getAnalyzer(isAnalyzerName(stored) ? stored : legacy ? "standard" : DEFAULT_ANALYZER);
    }
    return this.#analyzer;
  }

  /** The analyzer of this corpus's terms. */
  get analyzer(): AnalyzerName {
    return this.#currentAnalyzer().name;
  }

  /**
   * Makes `name` this corpus's analyzer. When it is another analyzer than the current one,
   * every document is removed (they must be indexed again) and true is returned.
   */
  useAnalyzer(name: AnalyzerName): boolean {
    if (!isAnalyzerName(name)) {
      throw new DossierError("INPUT_INVALID", `unknown analyzer "${String(name)}"`, {
        details: { analyzer: name },
      });
    }
    const current = this.analyzer;
    return this.#transaction(() => {
      let dropped = false;
      if (current !== name) {
        const paths = [...this.documents().keys()];
        for (const path of paths) {
          const row = this.#sql("SELECT id FROM documents WHERE path = ?").get(path) as { id: number };
          deleteDocument(this.#ctx, row.id);
        }
        this.#sql("DELETE FROM terms").run();
        this.#ctx.termIds.clear();
        dropped = paths.length > 0;
      }
      this.setMeta("analyzer", name);
      this.#analyzer = getAnalyzer(name);
      return dropped;
    });
  }

  /** Analyses `query` with this corpus's analyzer; `phrases` must then occur in every hit. */
  parseQuery(query: string, phrases?: readonly string[]): ParsedQuery {
    return parseQuery(query, { analyzer: this.#currentAnalyzer(), ...(phrases ? { phrases } : {}) });
  }

  /** A value of the index's `meta` table. */
  getMeta(key: string): string | undefined {
    return (this.#sql("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined)
      ?.value;
  }

  /** Sets a value of the index's `meta` table. */
  setMeta(key: string, value: string): void {
    this.#sql(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ).run(key, value);
  }

  /** The stored documents by path. */
  documents(): Map<string, StoredDocument> {
    const rows = this.#sql(
      "SELECT id, path, kind, content_hash AS contentHash, size, mtime_ms AS mtimeMs FROM documents",
    ).all() as unknown as StoredDocument[];
    return new Map(rows.map((row) => [row.path, { ...row }]));
  }

  /** Ids of the chunks of the document at `path`, in document order. */
  chunkIdsOf(path: string): number[] {
    const rows = this.#sql(
      "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = ? ORDER BY c.ordinal",
    ).all(path) as { id: number }[];
    return rows.map((r) => r.id);
  }

  /** Stores documents in one transaction, each replacing the document at its path; returns the chunks written. */
  write(documents: readonly DocumentInput[]): number {
    const analyzer = this.#currentAnalyzer();
    return this.#transaction(() => {
      if (this.getMeta("analyzer") !== analyzer.name) this.setMeta("analyzer", analyzer.name);
      let chunks = 0;
      const postings: PostingBuffer = [];
      for (const doc of documents) {
        const old = this.#sql("SELECT id FROM documents WHERE path = ?").get(doc.path) as
          | { id: number }
          | undefined;
        if (old) deleteDocument(this.#ctx, old.id);
        chunks += insertDocument(this.#ctx, doc, postings).chunkIds.length;
      }
      flushPostings(this.#ctx, postings);
      return chunks;
    });
  }

  /** Removes the documents at `paths` in one transaction; returns the chunks removed. */
  remove(paths: readonly string[]): number {
    return this.#transaction(() => {
      let chunks = 0;
      for (const path of paths) {
        const row = this.#sql("SELECT id FROM documents WHERE path = ?").get(path) as
          | { id: number }
          | undefined;
        if (row) chunks += deleteDocument(this.#ctx, row.id);
      }
      return chunks;
    });
  }

  /** Document count, chunk count and total token count. */
  stats(): CorpusStats {
    const row = this.#sql(
      "SELECT (SELECT count(*) FROM documents) AS documents, chunk_count AS chunks, total_length AS totalLength FROM corpus_stats WHERE id = 1",
    ).get() as unknown as CorpusStats;
    return { ...row };
  }

  /**
   * The best chunks for `query` by BM25: text (analysed with this corpus's analyzer, never read
   * as query syntax) or a query from {@link CorpusIndex.parseQuery}.
   */
  searchBm25(query: string | ParsedQuery, options: Bm25Params & { limit: number }): ScoredChunk[] {
    return bm25Search((text) => this.#sql(text), query, { ...options, analyzer: this.#currentAnalyzer() });
  }

  /** Chunks by id, in the order given (unknown ids are left out). */
  chunks(ids: readonly number[]): ChunkRecord[] {
    const get = this.#sql(
      "SELECT c.id, d.path, d.title, c.anchor, c.heading_path AS headingPath, c.page, c.text FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ?",
    );
    const out: ChunkRecord[] = [];
    for (const id of ids) {
      const row = get.get(id) as
        | (Omit<ChunkRecord, "headingPath" | "page"> & { headingPath: string; page: number | null })
        | undefined;
      if (!row) continue;
      const { headingPath, page, ...rest } = row;
      out.push({
        ...rest,
        headingPath: JSON.parse(headingPath) as string[],
        ...(page !== null ? { page } : {}),
      });
    }
    return out;
  }

  #requireVectors(): void {
    if (!this.#vectorsLoaded) {
      throw new DossierError(
        "STORE_ERROR",
        `sqlite-vec could not be loaded: ${this.#vectorError ?? "unknown error"}`,
      );
    }
  }

  /** The model of the stored vectors, if the corpus has any. */
  vectorModel(): VectorModel | undefined {
    return this.#vectorsLoaded ? vectorModel(this.#db) : undefined;
  }

  /** Prepares the vector table for `model`; returns true when existing vectors were dropped. */
  useVectorModel(model: VectorModel): boolean {
    this.#requireVectors();
    return this.#transaction(() => prepareVectorTable(this.#db, model));
  }

  /** Drops all vectors (every chunk then needs embedding again). */
  dropVectors(): void {
    this.#requireVectors();
    this.#transaction(() => dropVectorTable(this.#db));
  }

  /** Number of chunks without a vector. */
  unembeddedCount(): number {
    return (this.#sql("SELECT count(*) AS n FROM chunks WHERE embedded = 0").get() as { n: number }).n;
  }

  /** Up to `limit` chunks that have no vector yet, with the text to embed. */
  chunksToEmbed(limit: number): { id: number; text: string }[] {
    const rows = this.#sql(
      "SELECT id, heading_path AS headingPath, text FROM chunks WHERE embedded = 0 ORDER BY id LIMIT ?",
    ).all(limit) as { id: number; headingPath: string; text: string }[];
    return rows.map((r) => ({
      id: r.id,
      text: chunkIndexText({ headingPath: JSON.parse(r.headingPath) as string[], text: r.text }),
    }));
  }

  /** Stores vectors of chunks in one transaction. */
  storeVectors(vectors: readonly ChunkVector[]): void {
    this.#requireVectors();
    this.#transaction(() => storeVectors(this.#db, vectors));
  }

  /** The `k` chunks nearest to `vector`. */
  nearest(vector: Float32Array, k: number): { chunkId: number; distance: number }[] {
    this.#requireVectors();
    if (!vectorTableExists(this.#db)) return [];
    return nearestChunks(this.#db, vector, k);
  }

  /** Closes the database. */
  close(): void {
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
  }
}
