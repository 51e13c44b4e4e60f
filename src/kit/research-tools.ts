/**
 * The tools research agents may call, as one interface. The runtime builds it from the tool
 * layer (gateway, search providers, page reader, local corpus) according to the run's allowed
 * sources; a tool that is not available answers with a structured failure and makes no request.
 */

import type { AcademicResult } from "../tools/search/academic-result.ts";
import type { LocalSearchResult, SearchResult, TimeRange, ToolResult } from "../tools/types.ts";

/** What reading a page with respect to a goal yields. */
export interface PageReading {
  url: string;
  finalUrl: string;
  title: string;
  rationale: string;
  /** Verbatim excerpts of the page text. */
  evidence: string[];
  summary: string;
}

/** How much of a long page the reader sees: a token budget and the share kept from the head. */
export interface PageWindow {
  /** Token budget of the page text shown to the reader (estimated tokens). */
  maxPageTokens?: number;
  /** Share of the kept text taken from the head of the page, the rest from its tail (0–1). */
  headShare?: number;
}

/** A page's text as fetched, without a reader. */
export interface PageText {
  url: string;
  finalUrl: string;
  title: string;
  /** Markdown or plain text of the page ("" when it has none). */
  text: string;
  /** True when a conditional fetch was answered `304 Not Modified` (`text` is then ""). */
  notModified?: boolean;
  /** The answer's `ETag` and `Last-Modified`, for a later conditional fetch. */
  etag?: string;
  lastModified?: string;
}

/** How {@link ResearchTools.fetchPage} fetches: past the cache, and conditionally. */
export interface FetchPageRequest {
  /** Ask the server again instead of answering from the tool cache. */
  fresh?: boolean;
  /** Validators of the copy held: sent as If-None-Match / If-Modified-Since. */
  conditional?: { etag?: string; lastModified?: string };
}

/** Names of the research tools. */
export type ResearchToolName = "web_search" | "read_page" | "local_search" | "academic_search";

/** The tools of a run. */
export interface ResearchTools {
  /** The tools this run may use (by its `sources` option and configuration). */
  readonly available: readonly ResearchToolName[];
  webSearch(
    query: string,
    /** `fresh`: ask the providers again instead of answering from the tool cache. */
    options?: { topK?: number; timeRange?: TimeRange; fresh?: boolean },
  ): Promise<ToolResult<SearchResult[]>>;
  readPage(url: string, goal: string, window?: PageWindow): Promise<ToolResult<PageReading>>;
  /**
   * The text of a page as fetched, with no reader model (one `fetch_page` call); available
   * where `read_page` is. Optional: tools without it offer only `readPage`.
   */
  fetchPage?(url: string, request?: FetchPageRequest): Promise<ToolResult<PageText>>;
  localSearch(query: string, options?: { topK?: number }): Promise<ToolResult<LocalSearchResult[]>>;
  /**
   * Papers from arXiv / OpenAlex (the abstract as snippet, with authors); available when the
   * configuration names academic providers (DOSSIER_ACADEMIC) and the run may use the web.
   */
  academicSearch(
    query: string,
    options?: { topK?: number; timeRange?: TimeRange },
  ): Promise<ToolResult<AcademicResult[]>>;
}

/** A structured failure for a tool the run may not use. */
export function unavailable<T>(tool: ResearchToolName): ToolResult<T> {
  return {
    ok: false,
    error: { code: "INPUT_INVALID", message: `${tool} is not available in this run`, retryable: false },
    provider: "none",
    callId: "",
    latencyMs: 0,
  };
}
