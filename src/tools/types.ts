/**
 * Shapes shared by every tool: the structured observation a tool call returns, and the search
 * interfaces providers implement.
 */

import { z } from "zod";
import { sourceFilterSchema } from "./source-filter.ts";

/** A tool failure as an agent reads it. */
export interface ToolError {
  code: string;
  message: string;
  retryable: boolean;
}

/** The outcome of a tool call: never an exception. */
export type ToolResult<T> =
  | { ok: true; value: T; cached: boolean; provider: string; callId: string; latencyMs: number }
  | { ok: false; error: ToolError; provider: string; callId: string; latencyMs: number };

/** A time range a search may be limited to. */
export const timeRangeSchema = z.enum(["day", "week", "month", "year"]);
/** A time range a search may be limited to. */
export type TimeRange = z.infer<typeof timeRangeSchema>;

/** A web search request. */
export const searchRequestSchema = z.object({
  query: z.string().min(1).describe("the search query"),
  topK: z.number().int().min(1).max(50).default(5).describe("number of results wanted"),
  timeRange: timeRangeSchema.optional().describe("only results from the last day/week/month/year"),
  language: z.string().min(2).optional().describe("ISO 639-1 language code of wanted results"),
  /**
   * The run's source filter (allowed and excluded domains, a start date): sent as the provider's
   * own parameters where it has them, and applied to the results in every case.
   */
  sourceFilter: sourceFilterSchema.optional(),
});
/** A web search request (defaults applied). */
export type SearchRequest = z.infer<typeof searchRequestSchema>;

/** One web search result. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
  /** ISO date or datetime when the provider gives one. */
  publishedAt?: string;
}

/** What a provider receives besides the request. */
export interface ProviderCallContext {
  /** Aborts on timeout or cancellation. */
  signal: AbortSignal;
  /** The fetch to use (injected; tests and the SSRF guard replace it). */
  fetch: typeof globalThis.fetch;
}

/** A web search provider (Tavily, Exa, Brave, Serper, SearXNG, Jina, …). */
export interface SearchProvider {
  /** Provider name, e.g. `tavily`. */
  readonly name: string;
  /** The endpoint it calls (part of the cache key, so results of two endpoints never mix). */
  readonly endpoint?: string;
  search(request: SearchRequest, context: ProviderCallContext): Promise<SearchResult[]>;
}

/** One passage found in the local corpus. */
export interface LocalSearchResult {
  /** Path relative to the indexed root. */
  path: string;
  /** `page=N` or a heading slug; empty when the document has neither. */
  anchor: string;
  /** Title of the document. */
  title: string;
  /** The chunk text. */
  text: string;
  /** Higher is better. */
  score: number;
  /** Headings above the chunk, `A > B > C`, when the document has headings. */
  headingPath?: string;
}
