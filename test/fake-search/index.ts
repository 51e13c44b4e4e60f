/**
 * Public surface of the fake web search server test kit.
 */

export { DEFAULT_FAKE_RESULTS } from "./formats.ts";
export { startFakeSearch } from "./server.ts";
export {
  FAKE_SEARCH_PROVIDERS,
  type FakeSearch,
  type FakeSearchErrorReply,
  type FakeSearchHangReply,
  type FakeSearchJsonReply,
  type FakeSearchMalformedReply,
  type FakeSearchOptions,
  type FakeSearchProvider,
  type FakeSearchReply,
  type FakeSearchRequest,
  type FakeSearchResult,
  type FakeSearchResultsReply,
} from "./types.ts";
