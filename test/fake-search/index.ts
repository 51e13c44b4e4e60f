/**
 * Public surface of the fake web search server test kit.
 */

export { arxivErrorFeed, DEFAULT_FAKE_PAPERS, invertedIndex } from "./academic-formats.ts";
export { DEFAULT_FAKE_RESULTS } from "./formats.ts";
export { startFakeSearch } from "./server.ts";
export {
  FAKE_ACADEMIC_PROVIDERS,
  FAKE_SEARCH_PROVIDERS,
  type FakeAcademicProvider,
  type FakeProvider,
  type FakeSearch,
  type FakeSearchErrorReply,
  type FakeSearchHangReply,
  type FakeSearchJsonReply,
  type FakeSearchMalformedReply,
  type FakeSearchOptions,
  type FakeSearchProvider,
  type FakeSearchRawReply,
  type FakeSearchReply,
  type FakeSearchRequest,
  type FakeSearchResult,
  type FakeSearchResultsReply,
} from "./types.ts";
