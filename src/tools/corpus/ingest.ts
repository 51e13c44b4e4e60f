/**
 * Indexing a folder into a corpus, incrementally: walk it safely, read each file, and compare
 * the SHA-256 of its bytes with the stored one — unchanged files are left alone, new and
 * changed files are extracted, chunked and (re)written, documents whose file is gone or can no
 * longer be indexed are removed. Bad files are skipped with a reason, never fatal. With an
 * embeddings client, every chunk without a vector is then embedded (hybrid retrieval). A change
 * of analyzer, tokenizer or chunking settings rebuilds the whole corpus.
 */

import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { type Clock, systemClock, throwIfAborted } from "../../core/clock.ts";
import { DossierError, toDossierError } from "../../core/errors.ts";
import { type AnalyzerName, DEFAULT_ANALYZER, isAnalyzerName } from "./analyzer.ts";
import { type ChunkOptions, chunkDocument, DEFAULT_CHUNK_OPTIONS } from "./chunker.ts";
import type { CorpusIndex } from "./corpus-index.ts";
import type { EmbeddingClient } from "./embeddings.ts";
import { extractDocument } from "./extract.ts";
import { TOKENIZER_VERSION } from "./tokenize.ts";
import type { DocumentInput, IndexSummary, SkippedFile } from "./types.ts";
import { walkCorpus } from "./walk.ts";

/** Default size limit of one file: 50 MB. */
export const DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024;

/** Where an indexing run is. */
export interface IndexProgress {
  phase: "index" | "embed";
  done: number;
  total: number;
  /** The file being read (phase `index`). */
  path?: string;
}

/** Options of {@link indexDirectory}. */
export interface IndexDirectoryOptions {
  root: string;
  index: CorpusIndex;
  /** Corpus name for the summary (default `default`). */
  corpus?: string;
  /** Files larger than this are skipped (default 50 MB). */
  maxFileBytes?: number;
  chunking?: ChunkOptions;
  /**
   * The corpus's analyzer (`english` or `standard`); default: the one it has, `english` for a
   * new corpus. Another analyzer than the stored one re-indexes every file.
   */
  analyzer?: AnalyzerName;
  /** When given, chunks are embedded for hybrid retrieval. */
  embeddings?: EmbeddingClient;
  /** Chunks per embedding step (default 256; the client batches requests itself). */
  embedStep?: number;
  /** Index names starting with `.` too (default false). */
  includeHidden?: boolean;
  clock?: Clock;
  onProgress?: (progress: IndexProgress) => void;
  signal?: AbortSignal;
}

/** Chunks buffered before a write transaction. */
const WRITE_BATCH_CHUNKS = 2000;

function settingsKey(chunking: Required<ChunkOptions>, analyzer: AnalyzerName): string {
  return JSON.stringify({ tokenizer: TOKENIZER_VERSION, analyzer, chunking });
}

/** Options of {@link embedPendingChunks}. */
export interface EmbedOptions {
  /** Chunks per embedding step (default 256; the client batches requests itself). */
  embedStep?: number;
  onProgress?: (progress: IndexProgress) => void;
  signal?: AbortSignal;
}

/**
 * Embeds every chunk of `index` that has no vector yet; returns how many were embedded. A
 * model or dimension other than the stored one drops the old vectors first.
 */
export async function embedPendingChunks(
  index: CorpusIndex,
  embeddings: EmbeddingClient,
  options: EmbedOptions = {},
): Promise<number> {
  const step = Math.max(1, options.embedStep ?? 256);
  const stored = index.vectorModel();
  if (stored && stored.model !== embeddings.model) index.dropVectors();
  let total = index.unembeddedCount();
  let done = 0;
  let prepared = false;
  for (;;) {
    throwIfAborted(options.signal);
    const batch = index.chunksToEmbed(step);
    if (batch.length === 0) return done;
    const vectors = await embeddings.embed(
      batch.map((c) => c.text),
      options.signal,
    );
    if (!prepared) {
      prepared = true;
      // A new model or dimension drops the old vectors: every chunk is embedded again.
      if (index.useVectorModel({ model: embeddings.model, dims: vectors[0]!.length })) {
        total = index.unembeddedCount();
      }
    }
    index.storeVectors(batch.map((c, i) => ({ chunkId: c.id, vector: vectors[i]! })));
    done += batch.length;
    options.onProgress?.({ phase: "embed", done, total });
  }
}

/** Indexes the folder `options.root` into `options.index`; returns what was done. */
export async function indexDirectory(options: IndexDirectoryOptions): Promise<IndexSummary> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const { index } = options;
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const chunking = { ...DEFAULT_CHUNK_OPTIONS, ...options.chunking };
  const stored = index.getMeta("analyzer");
  const analyzer = options.analyzer ?? (isAnalyzerName(stored) ? stored : DEFAULT_ANALYZER);
  const key = settingsKey(chunking, analyzer);
  if (index.getMeta("settings") !== key) {
    index.remove([...index.documents().keys()]);
    index.setMeta("settings", key);
  }
  index.useAnalyzer(analyzer);

  const walk = await walkCorpus(options.root, {
    maxFileBytes,
    ...(options.includeHidden ? { includeHidden: true } : {}),
  });
  const skipped: SkippedFile[] = [...walk.skipped];
  const pagesWithoutText: IndexSummary["pagesWithoutText"] = [];
  const existing = index.documents();
  const keep = new Set<string>();
  let pending: DocumentInput[] = [];
  let pendingChunks = 0;
  let indexed = 0;
  let unchanged = 0;
  let chunks = 0;
  let bytes = 0;
  const flush = () => {
    if (pending.length) chunks += index.write(pending);
    pending = [];
    pendingChunks = 0;
  };

  for (const [i, file] of walk.files.entries()) {
    throwIfAborted(options.signal);
    options.onProgress?.({ phase: "index", done: i, total: walk.files.length, path: file.path });
    let data: Uint8Array;
    try {
      data = await readFile(file.realPath);
    } catch (error) {
      skipped.push({ path: file.path, reason: "unreadable", detail: (error as Error).message });
      continue;
    }
    if (data.length > maxFileBytes) {
      skipped.push({
        path: file.path,
        reason: "too-large",
        detail: `${data.length} bytes, over the limit of ${maxFileBytes}`,
      });
      continue;
    }
    const contentHash = createHash("sha256").update(data).digest("hex");
    if (existing.get(file.path)?.contentHash === contentHash) {
      keep.add(file.path);
      unchanged++;
      continue;
    }
    const outcome = await extractDocument(data, file.kind, basename(file.path));
    if (!outcome.ok) {
      skipped.push({ path: file.path, reason: outcome.reason, detail: outcome.detail });
      continue;
    }
    if (outcome.document.pagesWithoutText?.length) {
      pagesWithoutText.push({ path: file.path, pages: outcome.document.pagesWithoutText });
    }
    const docChunks = chunkDocument(outcome.document, chunking);
    pending.push({
      path: file.path,
      kind: file.kind,
      title: outcome.document.title,
      contentHash,
      size: data.length,
      mtimeMs: file.mtimeMs,
      chunks: docChunks,
    });
    keep.add(file.path);
    indexed++;
    bytes += data.length;
    pendingChunks += docChunks.length;
    if (pendingChunks >= WRITE_BATCH_CHUNKS) flush();
  }
  flush();
  options.onProgress?.({ phase: "index", done: walk.files.length, total: walk.files.length });

  const gone = [...existing.keys()].filter((path) => !keep.has(path));
  if (gone.length) index.remove(gone);
  index.setMeta("root", walk.root);
  index.setMeta("indexed_at", new Date(clock.now()).toISOString());

  let embedded = 0;
  if (options.embeddings) {
    try {
      embedded = await embedPendingChunks(index, options.embeddings, options);
    } catch (error) {
      const e = toDossierError(error);
      throw new DossierError(
        e.code,
        `${e.message} (the BM25 index is complete; run the command again to finish the embeddings)`,
        {
          cause: error,
          retryable: e.retryable,
          details: e.details,
        },
      );
    }
  }

  const stats = index.stats();
  return {
    corpus: options.corpus ?? "default",
    root: walk.root,
    analyzer,
    indexed,
    unchanged,
    removed: gone.length,
    skipped,
    pagesWithoutText,
    chunks,
    totalChunks: stats.chunks,
    totalDocuments: stats.documents,
    bytes,
    embedded,
    seconds: (clock.now() - started) / 1000,
  };
}
