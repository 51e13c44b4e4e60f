/**
 * arXiv search (academic).
 *
 * Followed: arXiv API User's Manual (https://info.arxiv.org/help/api/user-manual.html) and the
 * API Terms of Use (https://info.arxiv.org/help/api/tou.html): `GET
 * https://export.arxiv.org/api/query?search_query=…&start=0&max_results=…&sortBy=relevance`,
 * answered with an Atom 1.0 feed whose `<entry>` elements carry `<id>` (the abs page URL),
 * `<title>`, `<summary>` (the abstract), `<published>`, `<updated>`, `<author><name>`, `<link
 * rel="alternate" type="text/html">` (abs page) and `<link title="pdf">`, and `arxiv:` extension
 * elements (`arxiv:doi`, `arxiv:primary_category`, …). A request the API refuses is answered
 * with a feed holding one entry whose `<id>` starts with `http://arxiv.org/api/errors` and whose
 * `<summary>` says why. The terms ask for at most one request every three seconds on a single
 * connection: {@link ARXIV_POLICY}, the gateway's defaults for `arxiv`, keeps to that.
 */

import { DossierError } from "../../core/errors.ts";
import { DEFAULT_RETRY_POLICY } from "../../core/retry.ts";
import { httpStatusError, networkError } from "../http-errors.ts";
import type { ProviderPolicy } from "../provider-policy.ts";
import type { ProviderCallContext, SearchRequest } from "../types.ts";
import { type AcademicProvider, type AcademicResult, toAcademicResults } from "./academic-result.ts";
import { parseArxivFeed } from "./arxiv-atom.ts";
import { endpoint, type SearchProviderOptions } from "./provider-http.ts";
import { timeRangeStartMs } from "./time-range.ts";

/** The public arXiv API. */
export const DEFAULT_ARXIV_BASE_URL = "https://export.arxiv.org/api";
/** Results asked for per request at most (the manual advises small slices). */
export const ARXIV_MAX_RESULTS = 50;

/**
 * The gateway's limits for arXiv: the terms ask for one request every three seconds on one
 * connection, and retries wait at least as long (4 s base, ±25% jitter).
 */
export const ARXIV_POLICY: Partial<ProviderPolicy> = {
  concurrency: 1,
  ratePerSecond: 1 / 3,
  retry: { ...DEFAULT_RETRY_POLICY, maxRetries: 2, baseDelayMs: 4000, jitter: 0.25 },
};

/** Words too common to narrow an arXiv search; dropped from queries of several words. */
const STOPWORDS = new Set(
  "a an and are as at be by for from how in is it of on or not the to what which with about into over than that this these those via vs do does why when where who".split(
    " ",
  ),
);

/** `YYYYMMDDHHMM` in UTC, the form of arXiv's `submittedDate` ranges. */
function arxivStamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace(/[-T:]/g, "");
}

/**
 * The `search_query` for a request: the query's words (letters and digits only, lower case, so
 * no user text is read as field prefixes, Boolean operators, quotes or grouping), each searched
 * in all fields and all required (`all:w1 AND all:w2 …`); common words are dropped when others
 * remain. A time range adds `submittedDate:[from TO now]`.
 */
export function arxivSearchQuery(request: Pick<SearchRequest, "query" | "timeRange">, nowMs: number): string {
  const words = (request.query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 32);
  const content = words.filter((w) => !STOPWORDS.has(w));
  const kept = [...new Set(content.length > 0 ? content : words)];
  if (kept.length === 0) {
    throw new DossierError("INPUT_INVALID", "arxiv: the query has no words to search for", {
      retryable: false,
      details: { provider: "arxiv" },
    });
  }
  const terms = kept.map((w) => `all:${w}`);
  if (request.timeRange) {
    const from = timeRangeStartMs(request.timeRange, nowMs);
    terms.push(`submittedDate:[${arxivStamp(from)} TO ${arxivStamp(nowMs)}]`);
  }
  return terms.join(" AND ");
}

/** The answer text of a GET, or a typed error (HTTP status, network). */
async function fetchText(
  url: string,
  context: ProviderCallContext,
): Promise<{ status: number; text: string }> {
  let response: Response;
  try {
    response = await context.fetch(url, {
      method: "GET",
      headers: { accept: "application/atom+xml, application/xml;q=0.9, */*;q=0.1" },
      signal: context.signal,
    });
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason ?? error;
    throw networkError("arxiv", error);
  }
  const text = await response.text();
  if (!response.ok) {
    // A refused query comes as an error feed (HTTP 400): say what arXiv said.
    const refusal = response.status === 400 ? await refusalOf(text) : undefined;
    if (refusal) throw refusal;
    throw httpStatusError("arxiv", response, text);
  }
  return { status: response.status, text };
}

async function refusalOf(text: string): Promise<DossierError | undefined> {
  try {
    const feed = await parseArxivFeed(text);
    return feed.error ? arxivRefusal(feed.error) : undefined;
  } catch {
    return undefined;
  }
}

function arxivRefusal(message: string): DossierError {
  return new DossierError("PROVIDER_ERROR", `arxiv: the API refused the query (${message})`, {
    retryable: false,
    details: { provider: "arxiv" },
  });
}

/**
 * An arXiv provider. Needs no key. Results link the abs page (the entry's `<id>`); the snippet
 * is the abstract; `publishedAt` is the first version's date. `language` is not sent (arXiv has
 * no language filter).
 */
export function createArxivProvider(options: SearchProviderOptions = {}): AcademicProvider {
  const baseUrl = options.baseUrl ?? DEFAULT_ARXIV_BASE_URL;
  const now = options.now ?? Date.now;
  return {
    name: "arxiv",
    endpoint: baseUrl,
    async search(request: SearchRequest, context: ProviderCallContext): Promise<AcademicResult[]> {
      const nowMs = now();
      const params = new URLSearchParams({
        search_query: arxivSearchQuery(request, nowMs),
        start: "0",
        max_results: String(Math.min(request.topK, ARXIV_MAX_RESULTS)),
        sortBy: "relevance",
        sortOrder: "descending",
      });
      const { text } = await fetchText(`${endpoint(baseUrl, "/query")}?${params}`, context);
      const feed = await parseArxivFeed(text);
      if (feed.error) throw arxivRefusal(feed.error);
      return toAcademicResults(
        feed.entries.map((e) => ({
          title: e.title,
          url: e.absUrl,
          abstract: e.summary,
          published: e.published,
          authors: e.authors,
          ...(e.pdfUrl ? { pdfUrl: e.pdfUrl } : {}),
          ...(e.doi ? { doi: e.doi } : {}),
        })),
        nowMs,
        request.topK,
      );
    },
  };
}
