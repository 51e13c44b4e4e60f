/**
 * The local corpus: safe ingestion of a folder of Markdown, text, HTML and PDF files into an
 * SQLite index (BM25 with configurable k1/b over analysed terms — English stemming and stopwords
 * by default, CJK segmented —, FTS5 for required phrases, optional
 * sqlite-vec vectors fused by RRF), and the `local_search` tool.
 */

export * from "./analyzer.ts";
export * from "./bm25.ts";
export * from "./chunker.ts";
export * from "./corpus-index.ts";
export * from "./corpus-paths.ts";
export * from "./decode-text.ts";
export * from "./embeddings.ts";
export * from "./extract.ts";
export * from "./file-kind.ts";
export * from "./gateway-embeddings.ts";
export * from "./index-summary.ts";
export * from "./ingest.ts";
export * from "./local-search.ts";
export * from "./rrf.ts";
export * from "./slug.ts";
export * from "./tokenize.ts";
export type * from "./types.ts";
export * from "./walk.ts";
