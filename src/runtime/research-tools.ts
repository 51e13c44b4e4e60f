/**
 * Building a run's research tools from the tool layer: web search through the configured
 * provider chain, academic search (arXiv, OpenAlex) when configured, page reading with
 * `crawl_page`, and search of a local corpus — limited to what the run's `sources` allow. A `local-only` run gets no web tool at all and its page
 * fetcher refuses every request, so it provably makes no web request.
 */

import type { PageReading, PageText, ResearchToolName, ResearchTools } from "../kit/research-tools.ts";
import { unavailable } from "../kit/research-tools.ts";
import type { LlmClient } from "../llm/client.ts";
import type { LocalSearchTool } from "../tools/corpus/local-search.ts";
import { CRAWL_PROVIDER_POLICY, crawlPage } from "../tools/crawl/crawl-page.ts";
import { type FetchPageOptions, fetchPageTool } from "../tools/fetch/fetch-page.ts";
import type { ToolGateway } from "../tools/gateway.ts";
import type { AcademicProvider } from "../tools/search/academic-result.ts";
import { academicSearch } from "../tools/search/academic-search.ts";
import { webSearch } from "../tools/search/web-search.ts";
import type { SourceFilter } from "../tools/source-filter.ts";
import type { SearchProvider, ToolResult } from "../tools/types.ts";

/** What the research tools are built from. */
export interface ResearchToolsOptions {
  gateway: ToolGateway;
  llm: LlmClient;
  sources: "web" | "local" | "both" | "local-only";
  /** Web search providers in fallback order (empty: no web search). */
  searchProviders: readonly SearchProvider[];
  /** Academic search providers in fallback order (empty or absent: no academic search). */
  academicProviders?: readonly AcademicProvider[];
  /** The local corpus search, when the run has one. */
  localSearch?: LocalSearchTool;
  allowPrivateNetwork: boolean;
  /** The fetch web search providers use. */
  fetch?: typeof globalThis.fetch;
  /** The run's source filter: given to every search, page fetch and page read (not to local search). */
  sourceFilter?: SourceFilter;
  /** Options of every page fetch besides the guard flag (tests: a resolver for their host names). */
  fetchOptions?: Omit<FetchPageOptions, "signal" | "allowPrivateNetwork" | "sourceFilter">;
}

/** The gateway policy for the page reader. */
export const READER_POLICY = CRAWL_PROVIDER_POLICY;

/** Builds the tools. */
export function createResearchTools(options: ResearchToolsOptions): ResearchTools {
  const filter = options.sourceFilter ? { sourceFilter: options.sourceFilter } : {};
  const pageOptions = {
    ...options.fetchOptions,
    allowPrivateNetwork: options.allowPrivateNetwork,
    ...filter,
  };
  const web = options.sources === "web" || options.sources === "both";
  const local = options.sources !== "web" && options.localSearch !== undefined;
  const available: ResearchToolName[] = [];
  const academic = options.academicProviders ?? [];
  if (web && options.searchProviders.length > 0) available.push("web_search", "read_page");
  if (web && academic.length > 0) {
    if (!available.includes("read_page")) available.push("read_page");
    available.push("academic_search");
  }
  if (local) available.push("local_search");

  return {
    available,
    webSearch: (query, request = {}) =>
      available.includes("web_search")
        ? webSearch(
            {
              query,
              topK: request.topK ?? 5,
              ...(request.timeRange ? { timeRange: request.timeRange } : {}),
              ...filter,
            },
            {
              gateway: options.gateway,
              providers: options.searchProviders,
              ...(options.fetch ? { fetch: options.fetch } : {}),
              ...(request.fresh ? { fresh: true } : {}),
            },
          )
        : Promise.resolve(unavailable("web_search")),
    academicSearch: (query, request = {}) =>
      available.includes("academic_search")
        ? academicSearch(
            {
              query,
              topK: request.topK ?? 5,
              ...(request.timeRange ? { timeRange: request.timeRange } : {}),
              ...filter,
            },
            {
              gateway: options.gateway,
              providers: academic,
              ...(options.fetch ? { fetch: options.fetch } : {}),
            },
          )
        : Promise.resolve(unavailable("academic_search")),
    readPage: async (url, goal, window = {}): Promise<ToolResult<PageReading>> => {
      if (!available.includes("read_page")) return unavailable("read_page");
      const r = await crawlPage({
        llm: options.llm,
        gateway: options.gateway,
        url,
        goal,
        ...(window.maxPageTokens === undefined ? {} : { maxPageTokens: window.maxPageTokens }),
        ...(window.headShare === undefined ? {} : { headShare: window.headShare }),
        fetchOptions: pageOptions,
      });
      if (!r.ok) return r;
      const { url: u, finalUrl, title, rationale, evidence, summary } = r.value;
      return { ...r, value: { url: u, finalUrl, title, rationale, evidence, summary } };
    },
    fetchPage: async (url, request = {}): Promise<ToolResult<PageText>> => {
      if (!available.includes("read_page")) return unavailable("read_page");
      const r = await fetchPageTool(options.gateway, url, {
        ...pageOptions,
        ...(request.fresh ? { fresh: true } : {}),
        ...(request.conditional ? { conditional: request.conditional } : {}),
      });
      if (!r.ok) return r;
      const { url: u, finalUrl, title, text, notModified, etag, lastModified } = r.value;
      return {
        ...r,
        value: {
          url: u,
          finalUrl,
          title,
          text,
          ...(notModified ? { notModified } : {}),
          ...(etag ? { etag } : {}),
          ...(lastModified ? { lastModified } : {}),
        },
      };
    },
    localSearch: async (query, request = {}) => {
      if (!local || !options.localSearch) return unavailable("local_search");
      const r = await options.localSearch(query, { topK: request.topK ?? 5 });
      if (!r.ok) return r;
      return {
        ...r,
        value: r.value.map((h) => ({
          path: h.path,
          anchor: h.anchor,
          title: h.title,
          text: h.text,
          score: h.score,
          ...(h.headingPath ? { headingPath: h.headingPath } : {}),
        })),
      };
    },
  };
}
