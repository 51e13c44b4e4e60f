/**
 * The web search module: the `web_search` tool, result merging, and the providers (Tavily, Exa,
 * Brave, Serper, SearXNG, Jina) behind one interface; the `academic_search` tool over arXiv and
 * OpenAlex.
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
  arxivSearchQuery,
  createArxivProvider,
  DEFAULT_ARXIV_BASE_URL,
} from "./arxiv.ts";
export { type ArxivEntry, type ArxivFeed, parseArxivFeed } from "./arxiv-atom.ts";

export { BRAVE_MAX_COUNT, braveSearchLang, createBraveProvider, DEFAULT_BRAVE_BASE_URL } from "./brave.ts";
export { createExaProvider, DEFAULT_EXA_BASE_URL, timeRangeStart } from "./exa.ts";
export { createJinaProvider, DEFAULT_JINA_BASE_URL } from "./jina.ts";
export { mergeSearchResults } from "./merge.ts";
export {
  abstractFromInvertedIndex,
  createOpenAlexProvider,
  DEFAULT_OPENALEX_BASE_URL,
  OPENALEX_MAX_PER_PAGE,
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
export {
  type CreateSearchProvidersOptions,
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
export { createSearxngProvider, DEFAULT_SEARXNG_BASE_URL, SEARXNG_TIME_RANGE } from "./searxng.ts";
export { createSerperProvider, DEFAULT_SERPER_BASE_URL } from "./serper.ts";
export { createTavilyProvider, DEFAULT_TAVILY_BASE_URL, TAVILY_MAX_RESULTS } from "./tavily.ts";
export { type MultiSearchResult, type WebSearchOptions, webSearch, webSearchMany } from "./web-search.ts";
