/**
 * The web search module: the `web_search` tool, result merging, and the providers (Tavily, Exa,
 * Brave, Serper, SearXNG, Jina): entries of one table read by one HTTP provider; the
 * `academic_search` tool over arXiv and OpenAlex.
 */

export {
  ACADEMIC_BASE_URL_SETTINGS,
  ACADEMIC_PROVIDER_NAMES,
  type AcademicProviderName,
  type AcademicProviderSettings,
  academicBaseUrlsFromEnv,
  type CreateAcademicProvidersOptions,
  createAcademicProviders,
  isAcademicProviderName,
} from "./academic-providers.ts";
export {
  type AcademicProvider,
  type AcademicResult,
  bareDoi,
  MAX_ABSTRACT_CHARS,
  MAX_AUTHORS,
  type RawPaperFields,
  toAcademicResult,
  toAcademicResults,
} from "./academic-result.ts";
export { type AcademicSearchOptions, academicSearch } from "./academic-search.ts";
export {
  ARXIV_MAX_RESULTS,
  ARXIV_POLICY,
  arxivSearchQuery,
  createArxivProvider,
  DEFAULT_ARXIV_BASE_URL,
} from "./arxiv.ts";
export { type ArxivEntry, type ArxivFeed, parseArxivFeed } from "./arxiv-atom.ts";

export {
  createHttpSearchProvider,
  defineSearchProvider,
  type HttpSearchProvider,
  type HttpSearchProviderEntry,
  type ProviderCredential,
} from "./http-search-provider.ts";
export { mergeSearchResults } from "./merge.ts";
export {
  abstractFromInvertedIndex,
  createOpenAlexProvider,
  DEFAULT_OPENALEX_BASE_URL,
  OPENALEX_MAX_PER_PAGE,
  OPENALEX_PROVIDER,
  OPENALEX_SELECT,
  type OpenAlexProviderOptions,
  openAlexSearchText,
} from "./openalex.ts";
export {
  endpoint,
  parseProviderBody,
  type RawResultFields,
  requireKey,
  type SearchProviderOptions,
  toSearchResult,
  toSearchResults,
} from "./provider-http.ts";
export { SEARCH_PROVIDER_POLICIES } from "./provider-limits.ts";
export {
  type CreateSearchProvidersOptions,
  createSearchProvider,
  createSearchProviders,
  isSearchProviderName,
  type KeyedSearchProviderName,
  type MissingSearchProvider,
  SEARCH_PROVIDER_NAMES,
  SEARCH_PROVIDER_SPECS,
  type SearchProviderName,
  type SearchProviderSet,
  type SearchProviderSettings,
  type SearchProviderSpec,
  searchBaseUrlsFromEnv,
} from "./providers.ts";
export {
  countParam,
  languageParam,
  type ParamContext,
  type ParamFunction,
  type ParamValue,
  queryParam,
  type RequestParams,
  resolveParams,
  timeRangeParam,
} from "./request-params.ts";
export {
  cleanSnippet,
  cleanTitle,
  decodeEntities,
  isHttpUrl,
  MAX_SNIPPET_CHARS,
  MAX_TITLE_CHARS,
  plainText,
  toPublishedAt,
  truncate,
} from "./result-text.ts";
export { TIME_RANGE_DAYS, timeRangeStart, timeRangeStartMs } from "./time-range.ts";
export { braveSearchLang, SEARXNG_TIME_RANGE, WEB_SEARCH_PROVIDERS } from "./web-provider-table.ts";
export { type MultiSearchResult, type WebSearchOptions, webSearch, webSearchMany } from "./web-search.ts";
