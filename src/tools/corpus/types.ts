/**
 * Shapes of the local corpus: extracted documents and their sections, chunks, skipped files
 * and the summary of an indexing run.
 */

import type { LocalSearchResult } from "../types.ts";
import type { AnalyzerName } from "./analyzer.ts";

/** The kinds of file the corpus ingests. */
export type DocumentKind = "markdown" | "text" | "html" | "pdf";

/**
 * Why a file was not indexed: `binary` (NUL bytes or undecodable text), `too-large` (over the
 * size limit), `corrupt-pdf`, `encrypted-pdf`, `outside-root` (a link leading out of the
 * indexed folder), `symlink-loop` (a link back to one of its own ancestors), `broken-link`,
 * `duplicate` (a link to a file or folder already indexed under another path),
 * `unsupported-type`, `no-text` (nothing to index), `unreadable` (an I/O error).
 */
export type SkipReason =
  | "binary"
  | "too-large"
  | "corrupt-pdf"
  | "encrypted-pdf"
  | "outside-root"
  | "symlink-loop"
  | "broken-link"
  | "duplicate"
  | "unsupported-type"
  | "no-text"
  | "unreadable";

/** A file (or folder) that was not indexed, and why. */
export interface SkippedFile {
  /** Path relative to the root, `/`-separated. */
  path: string;
  reason: SkipReason;
  /** A human-readable detail (an error message, the link target, the size). */
  detail?: string;
}

/** A run of a document under one heading (or on one PDF page). */
export interface Section {
  /** Heading titles from the outermost to this section's own; empty before the first heading. */
  headingPath: string[];
  /** Slug of the deepest heading, `page=N` for a PDF page, or empty. */
  anchor: string;
  /** 1-based page number, for PDFs. */
  page?: number;
  /** The section's paragraphs (blocks) in order, verbatim apart from surrounding whitespace. */
  paragraphs: string[];
}

/** The text of a document, structured for chunking. */
export interface ExtractedDocument {
  title: string;
  sections: Section[];
  /** PDF pages (1-based) without extractable text, left out of `sections`. */
  pagesWithoutText?: number[];
}

/** One chunk to be stored. */
export interface ChunkInput {
  /** The chunk text returned by searches (an excerpt of the document). */
  text: string;
  anchor: string;
  headingPath: string[];
  page?: number;
  /** The text tokenised for retrieval; default: the heading path and the text. */
  indexText?: string;
}

/** One document to be stored, replacing any document at the same path. */
export interface DocumentInput {
  /** Path relative to the root, `/`-separated (for BEIR data: the document id). */
  path: string;
  kind: DocumentKind;
  title: string;
  /** SHA-256 of the file's bytes, hex. */
  contentHash: string;
  size: number;
  mtimeMs: number;
  chunks: ChunkInput[];
}

/** A search hit of the local corpus, with where exactly in the document it is. */
export interface LocalSearchHit extends LocalSearchResult {
  /** Heading path as `A > B > C`; empty when none. */
  headingPath: string;
  /** 1-based PDF page, when the chunk comes from a PDF. */
  page?: number;
  /** The chunk's id in the corpus. */
  chunkId: number;
}

/** What an indexing run did. */
export interface IndexSummary {
  corpus: string;
  root: string;
  /** The corpus's analyzer. */
  analyzer: AnalyzerName;
  /** Files (re)chunked and stored in this run. */
  indexed: number;
  /** Files whose content hash had not changed. */
  unchanged: number;
  /** Documents removed because their file is gone or can no longer be indexed. */
  removed: number;
  skipped: SkippedFile[];
  /** PDFs indexed in this run that have pages without extractable text, and those pages. */
  pagesWithoutText: { path: string; pages: number[] }[];
  /** Chunks written in this run. */
  chunks: number;
  /** Chunks in the corpus after the run. */
  totalChunks: number;
  /** Documents in the corpus after the run. */
  totalDocuments: number;
  /** Bytes of the files read and indexed in this run. */
  bytes: number;
  /** Chunks embedded in this run (hybrid only). */
  embedded: number;
  /** Wall time of the run. */
  seconds: number;
}
