/**
 * Searching a corpus: BM25 alone, or — when an embeddings client is given — BM25 fused with
 * dense retrieval (sqlite-vec, cosine) by reciprocal rank fusion; and the `local_search` tool,
 * which runs a search through the ToolGateway (tool `local_search`, provider `corpus`).
 * Without embeddings nothing here touches the network.
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import type { ToolGateway } from "../gateway.ts";
import type { ToolResult } from "../types.ts";
import { type Bm25Params, DEFAULT_BM25 } from "./bm25.ts";
import type { ChunkRecord, CorpusIndex } from "./corpus-index.ts";
import type { EmbeddingClient } from "./embeddings.ts";
import { reciprocalRankFusion } from "./rrf.ts";
import type { LocalSearchHit } from "./types.ts";

/** A `local_search` request as a model or caller gives it. */
export const localSearchRequestSchema = z.object({
  query: z.string().trim().min(1).describe("what to look for in the user's own documents"),
  topK: z.number().int().min(1).max(50).default(5).describe("number of passages wanted (1–50)"),
});
/** A `local_search` request (defaults applied). */
export type LocalSearchRequest = z.infer<typeof localSearchRequestSchema>;

/** BM25 parameters as given by a caller, validated. */
export const bm25ParamsSchema = z.object({
  k1: z.number().min(0).max(100).default(DEFAULT_BM25.k1),
  b: z.number().min(0).max(1).default(DEFAULT_BM25.b),
});

/** Options of {@link localSearch}. */
export interface LocalSearchOptions {
  index: CorpusIndex;
  query: string;
  /** Results wanted (default 5). */
  topK?: number;
  bm25?: Partial<Bm25Params>;
  /** When given, dense retrieval is fused with BM25 (hybrid). */
  embeddings?: EmbeddingClient;
  /** Length of each ranked list fused by RRF (default 100, at least topK). */
  fusionDepth?: number;
  signal?: AbortSignal;
}

/** The search hit of a stored chunk. */
export function toHit(chunk: ChunkRecord, score: number): LocalSearchHit {
  return {
    path: chunk.path,
    anchor: chunk.anchor,
    title: chunk.title,
    text: chunk.text,
    score,
    headingPath: chunk.headingPath.join(" > "),
    ...(chunk.page !== undefined ? { page: chunk.page } : {}),
    chunkId: chunk.id,
  };
}

async function denseRanking(
  options: LocalSearchOptions,
  embeddings: EmbeddingClient,
  depth: number,
): Promise<number[]> {
  const stored = options.index.vectorModel();
  if (!stored) {
    throw new DossierError(
      "INPUT_INVALID",
      "this corpus has no embeddings: index it with --hybrid before searching with --hybrid",
    );
  }
  if (stored.model !== embeddings.model) {
    throw new DossierError(
      "INPUT_INVALID",
      `this corpus was embedded with ${stored.model}, not ${embeddings.model}: set DOSSIER_EMBEDDING_MODEL=${stored.model} or re-index with --hybrid`,
      { details: { stored: stored.model, requested: embeddings.model } },
    );
  }
  const [vector] = await embeddings.embed([options.query], options.signal);
  if (!vector || vector.length !== stored.dims) {
    throw new DossierError(
      "PROVIDER_ERROR",
      `the query embedding has ${vector?.length ?? 0} dimensions, the corpus ${stored.dims}`,
    );
  }
  return options.index.nearest(vector, depth).map((n) => n.chunkId);
}

/** Searches a corpus; hits are best first, `score` is BM25 (or the RRF score when hybrid). */
export async function localSearch(options: LocalSearchOptions): Promise<LocalSearchHit[]> {
  const topK = options.topK ?? 5;
  const bm25 = bm25ParamsSchema.parse(options.bm25 ?? {});
  if (!options.embeddings) {
    const scored = options.index.searchBm25(options.query, { ...bm25, limit: topK });
    const records = new Map(options.index.chunks(scored.map((s) => s.chunkId)).map((c) => [c.id, c]));
    return scored.flatMap((s) => {
      const record = records.get(s.chunkId);
      return record ? [toHit(record, s.score)] : [];
    });
  }
  const depth = Math.max(topK, options.fusionDepth ?? 100);
  const dense = await denseRanking(options, options.embeddings, depth);
  const lexical = options.index.searchBm25(options.query, { ...bm25, limit: depth }).map((s) => s.chunkId);
  const fused = reciprocalRankFusion([lexical, dense]).slice(0, topK);
  const records = new Map(options.index.chunks(fused.map((f) => f.id)).map((c) => [c.id, c]));
  return fused.flatMap((f) => {
    const record = records.get(f.id);
    return record ? [toHit(record, f.score)] : [];
  });
}

/** Options of {@link localSearchTool}. */
export interface LocalSearchToolOptions {
  index: CorpusIndex;
  /** The corpus name, recorded in the call's arguments. */
  corpus?: string;
  bm25?: Partial<Bm25Params>;
  /** When given, every search is hybrid. */
  embeddings?: EmbeddingClient;
}

/** The `local_search` tool: a search through the gateway that never throws. */
export type LocalSearchTool = (
  query: string,
  options?: { topK?: number },
) => Promise<ToolResult<LocalSearchHit[]>>;

/** Builds the `local_search` tool over a corpus. Results are not cached (the corpus changes). */
export function localSearchTool(gateway: ToolGateway, options: LocalSearchToolOptions): LocalSearchTool {
  return (query, request = {}) => {
    const args = {
      query,
      topK: request.topK ?? 5,
      corpus: options.corpus ?? "default",
      hybrid: options.embeddings !== undefined,
    };
    return gateway.call<LocalSearchHit[]>({
      tool: "local_search",
      provider: "corpus",
      args,
      cache: false,
      count: (hits) => hits.length,
      run: async (signal) => {
        const parsed = localSearchRequestSchema.safeParse({ query, topK: args.topK });
        if (!parsed.success) {
          throw new DossierError(
            "INPUT_INVALID",
            `local_search: ${parsed.error.issues[0]?.message ?? "bad request"}`,
          );
        }
        return localSearch({
          index: options.index,
          query: parsed.data.query,
          topK: parsed.data.topK,
          ...(options.bm25 ? { bm25: options.bm25 } : {}),
          ...(options.embeddings ? { embeddings: options.embeddings } : {}),
          signal,
        });
      },
    });
  };
}
