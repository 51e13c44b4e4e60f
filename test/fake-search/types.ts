/**
 * Types of the in-process fake web search server used by tests.
 */

/** Providers the fake server speaks for. */
export const FAKE_SEARCH_PROVIDERS = ["tavily", "exa", "brave", "serper", "searxng", "jina"] as const;
/** A provider the fake server speaks for. */
export type FakeSearchProvider = (typeof FAKE_SEARCH_PROVIDERS)[number];
/** Academic search providers the fake server speaks for (arXiv's Atom feed, OpenAlex's JSON). */
export const FAKE_ACADEMIC_PROVIDERS = ["arxiv", "openalex"] as const;
/** An academic search provider the fake server speaks for. */
export type FakeAcademicProvider = (typeof FAKE_ACADEMIC_PROVIDERS)[number];
/** Any provider the fake server speaks for. */
export type FakeProvider = FakeSearchProvider | FakeAcademicProvider;

/** A result the fake serves, rendered into each provider's own format. */
export interface FakeSearchResult {
  title: string;
  url: string;
  /** Rendered as the provider's snippet field (HTML kept as given). */
  snippet: string;
  /** ISO date (`2024-01-15`) or datetime, rendered in the provider's date format. */
  publishedAt?: string;
  /** Authors (academic providers; default one example author). */
  authors?: string[];
  /** DOI as `10.…` (academic providers). */
  doi?: string;
  /** PDF link (academic providers). */
  pdfUrl?: string;
}

/** One request the fake received. */
export interface FakeSearchRequest {
  /** Which provider's endpoint was addressed (the first path segment). */
  provider: FakeProvider;
  method: string;
  /** The path below the provider's base URL, e.g. `/search` or `/res/v1/web/search`. */
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** Query-string parameters (a repeated one: its last value). */
  query: Record<string, string>;
  /** Every value of each query-string parameter, in order (repeated parameters). */
  queryAll: Record<string, string[]>;
  /** Parsed JSON body, the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
}

/** The provider's results, from the reply or the server's `results`, cut to the requested count. */
export interface FakeSearchResultsReply {
  kind: "results";
  results?: FakeSearchResult[];
}

/** An HTTP error in the provider's error format (or `body` as given). */
export interface FakeSearchErrorReply {
  kind: "error";
  status: number;
  /** Extra headers, e.g. `{ "retry-after": "3" }`. */
  headers?: Record<string, string>;
  body?: unknown;
}

/** Any JSON body (e.g. a well-formed answer of the wrong shape). */
export interface FakeSearchJsonReply {
  kind: "json";
  body: unknown;
  status?: number;
}

/** A 200 answer whose body is truncated JSON. */
export interface FakeSearchMalformedReply {
  kind: "malformed";
}

/** A body sent as given, e.g. hand-written Atom XML. */
export interface FakeSearchRawReply {
  kind: "raw";
  body: string;
  status?: number;
  /** Default: the provider's own content type. */
  contentType?: string;
}

/** No answer at all until the server closes (timeouts). */
export interface FakeSearchHangReply {
  kind: "hang";
}

/** What the fake answers to one request. */
export type FakeSearchReply =
  | FakeSearchResultsReply
  | FakeSearchErrorReply
  | FakeSearchJsonReply
  | FakeSearchMalformedReply
  | FakeSearchRawReply
  | FakeSearchHangReply;

/** Options of {@link startFakeSearch}. */
export interface FakeSearchOptions {
  /** Results served when no reply is scripted (default: two example results). */
  results?: FakeSearchResult[];
  /** Scripted replies per provider, used in order; once used up, `results` are served. */
  replies?: Partial<Record<FakeProvider, FakeSearchReply[]>>;
  /**
   * Keys each provider expects, checked where that provider reads it; a request without the
   * right key gets 401 in the provider's error format. Providers without an entry accept any.
   */
  keys?: Partial<Record<FakeSearchProvider, string>>;
  /** Decides the reply before the scripted ones; undefined falls through. */
  handler?: (request: FakeSearchRequest) => FakeSearchReply | undefined;
  /**
   * Latency of every answer, in ms (for benchmarks), or of each answer as a function of its
   * request's query-string parameters (e.g. to let later searches finish first). Default 0.
   */
  latencyMs?: number | ((query: Record<string, string>) => number);
}

/** A running fake search server. */
export interface FakeSearch {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The base URL to configure `provider` with (`<url>/<provider>`). */
  baseUrl(provider: FakeProvider): string;
  /** Every request received, in order. */
  requests: FakeSearchRequest[];
  /** The requests addressed to `provider`. */
  requestsFor(provider: FakeProvider): FakeSearchRequest[];
  /** Appends scripted replies for `provider`. */
  enqueue(provider: FakeProvider, ...replies: FakeSearchReply[]): void;
  /** Scripted replies of `provider` not yet used. */
  pending(provider: FakeProvider): number;
  close(): Promise<void>;
}
