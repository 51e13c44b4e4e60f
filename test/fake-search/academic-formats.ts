/**
 * The wire formats of the fake search server's academic providers, after each API's
 * documentation (see src/tools/search/arxiv.ts and openalex.ts for the documents followed):
 *
 * - arXiv: `GET /query?search_query=…&max_results=…` answered with an Atom 1.0 feed
 *   (`application/atom+xml`), opensearch counts, one `<entry>` per paper; a refused query (no
 *   `search_query`/`id_list`, a negative `max_results`) answered HTTP 400 with an error feed.
 * - OpenAlex: `GET /works?search=…&per-page=…` answered with `{ meta, results: [Work], group_by }`,
 *   the abstract as an inverted index; errors as `{ error, message }`.
 */

import type { FakeAcademicProvider, FakeSearchRequest, FakeSearchResult } from "./types.ts";

/** Content type of each provider's answers. */
export const ACADEMIC_CONTENT_TYPE: Record<FakeAcademicProvider, string> = {
  arxiv: "application/atom+xml; charset=utf-8",
  openalex: "application/json",
};

/** Truncated answers sent by a `malformed` reply. */
export const ACADEMIC_MALFORMED_BODY: Record<FakeAcademicProvider, string> = {
  arxiv:
    '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n  <entry>\n    <title>Trunc',
  openalex: '{"meta":{"count":1},"results":[{"id":"https://openalex.org/W1","title":"Trunc',
};

/** Example papers served by default. */
export const DEFAULT_FAKE_PAPERS: FakeSearchResult[] = [
  {
    title: "Attention Is All You Need",
    url: "https://arxiv.org/abs/1706.03762v7",
    snippet: "The dominant sequence transduction models are based on complex recurrent networks.",
    publishedAt: "2017-06-12T17:57:34Z",
    authors: ["Ashish Vaswani", "Noam Shazeer"],
    pdfUrl: "https://arxiv.org/pdf/1706.03762v7",
  },
];

/** True when `request` hits the provider's search endpoint. */
export function isAcademicRoute(provider: FakeAcademicProvider, request: FakeSearchRequest): boolean {
  if (request.method !== "GET") return false;
  return provider === "arxiv" ? request.path === "/query" : request.path === "/works";
}

/** The number of results asked for (arXiv default 10, OpenAlex default 25). */
export function academicCount(provider: FakeAcademicProvider, request: FakeSearchRequest): number {
  const raw =
    provider === "arxiv" ? (request.query.max_results ?? "10") : (request.query["per-page"] ?? "25");
  return Number(raw);
}

const xmlEscape = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const FEED_OPEN =
  '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">';

/** arXiv's error feed for a refused query. */
export function arxivErrorFeed(message: string): string {
  const id = `http://arxiv.org/api/errors#${message.replace(/\W+/g, "_")}`;
  return [
    FEED_OPEN,
    '  <link href="http://arxiv.org/api/query?search_query=&amp;id_list=&amp;start=0&amp;max_results=-1" rel="self" type="application/atom+xml"/>',
    '  <title type="html">ArXiv Query: search_query=&amp;id_list=&amp;start=0&amp;max_results=-1</title>',
    "  <id>http://arxiv.org/api/fake-error</id>",
    "  <updated>2024-01-15T00:00:00-05:00</updated>",
    "  <opensearch:totalResults>1</opensearch:totalResults>",
    "  <opensearch:startIndex>0</opensearch:startIndex>",
    "  <opensearch:itemsPerPage>1</opensearch:itemsPerPage>",
    "  <entry>",
    `    <id>${xmlEscape(id)}</id>`,
    "    <title>Error</title>",
    `    <summary>${xmlEscape(message)}</summary>`,
    "    <updated>2024-01-15T00:00:00-05:00</updated>",
    `    <link href="${xmlEscape(id)}" rel="alternate" type="text/html"/>`,
    "    <author>",
    "      <name>arXiv api core</name>",
    "    </author>",
    "  </entry>",
    "</feed>",
    "",
  ].join("\n");
}

/** The provider's error body for `status` (arXiv: an error feed for 400, plain text otherwise). */
export function academicErrorBody(provider: FakeAcademicProvider, status: number, message: string): unknown {
  if (provider === "openalex") return { error: status === 429 ? "Rate limit exceeded" : "Error", message };
  return status === 400 ? arxivErrorFeed(message) : message;
}

/** The provider's complaint about a malformed request, or undefined. */
export function academicRequestProblem(
  provider: FakeAcademicProvider,
  request: FakeSearchRequest,
): { status: number; message: string } | undefined {
  if (provider === "arxiv") {
    const q = request.query.search_query;
    if ((q === undefined || q.trim() === "") && !request.query.id_list) {
      return { status: 400, message: "search_query or id_list is required" };
    }
    if (Number(request.query.max_results ?? "10") < 0) {
      return { status: 400, message: "max_results must be non-negative" };
    }
    return undefined;
  }
  const perPage = Number(request.query["per-page"] ?? "25");
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > 200) {
    return { status: 400, message: "per-page must be a number between 1 and 200" };
  }
  return undefined;
}

/** `publishedAt` as a full timestamp (arXiv's `<published>`). */
function stamp(publishedAt: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(publishedAt) ? `${publishedAt}T00:00:00Z` : publishedAt;
}

function arxivEntry(r: FakeSearchResult): string {
  const pdf = r.pdfUrl ?? r.url.replace("/abs/", "/pdf/");
  const authors = r.authors ?? ["A. Author"];
  return [
    "  <entry>",
    `    <id>${xmlEscape(r.url)}</id>`,
    ...(r.publishedAt ? [`    <updated>${stamp(r.publishedAt)}</updated>`] : []),
    ...(r.publishedAt ? [`    <published>${stamp(r.publishedAt)}</published>`] : []),
    `    <title>${xmlEscape(r.title)}</title>`,
    `    <summary>  ${xmlEscape(r.snippet)}\n</summary>`,
    ...authors.flatMap((name) => ["    <author>", `      <name>${xmlEscape(name)}</name>`, "    </author>"]),
    ...(r.doi ? [`    <arxiv:doi>${xmlEscape(r.doi)}</arxiv:doi>`] : []),
    `    <link href="${xmlEscape(r.url)}" rel="alternate" type="text/html"/>`,
    `    <link title="pdf" href="${xmlEscape(pdf)}" rel="related" type="application/pdf"/>`,
    '    <arxiv:primary_category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>',
    '    <category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>',
    "  </entry>",
  ].join("\n");
}

/** The inverted index of a text, as OpenAlex gives abstracts. */
export function invertedIndex(text: string): Record<string, number[]> {
  const index: Record<string, number[]> = {};
  text
    .split(/\s+/)
    .filter(Boolean)
    .forEach((word, position) => {
      index[word] ??= [];
      index[word].push(position);
    });
  return index;
}

function openAlexWork(r: FakeSearchResult, i: number): Record<string, unknown> {
  return {
    id: `https://openalex.org/W${4000000000 + i}`,
    doi: r.doi ? `https://doi.org/${r.doi}` : null,
    title: r.title,
    display_name: r.title,
    publication_date: r.publishedAt ? r.publishedAt.slice(0, 10) : null,
    authorships: (r.authors ?? ["A. Author"]).map((name, n) => ({
      author_position: n === 0 ? "first" : "middle",
      author: { id: `https://openalex.org/A${5000000000 + n}`, display_name: name, orcid: null },
      institutions: [],
      countries: [],
      is_corresponding: n === 0,
      raw_author_name: name,
      raw_affiliation_strings: [],
    })),
    primary_location: {
      is_oa: r.pdfUrl !== undefined,
      landing_page_url: r.url,
      pdf_url: r.pdfUrl ?? null,
      source: { id: "https://openalex.org/S1", display_name: "Fake Journal", type: "journal" },
      license: null,
      version: "publishedVersion",
    },
    abstract_inverted_index: r.snippet ? invertedIndex(r.snippet) : null,
  };
}

/** The provider's answer carrying `results` for `request`. */
export function academicResultsBody(
  provider: FakeAcademicProvider,
  request: FakeSearchRequest,
  results: readonly FakeSearchResult[],
): string {
  if (provider === "openalex") {
    return JSON.stringify({
      meta: {
        count: results.length,
        db_response_time_ms: 12,
        page: 1,
        per_page: academicCount(provider, request),
        groups_count: null,
      },
      results: results.map(openAlexWork),
      group_by: [],
    });
  }
  const q = request.query.search_query ?? "";
  const selfQuery = xmlEscape(
    `search_query=${q}&id_list=&start=0&max_results=${academicCount(provider, request)}`,
  );
  return [
    FEED_OPEN,
    `  <link href="http://arxiv.org/api/query?${encodeURIComponent(selfQuery)}" rel="self" type="application/atom+xml"/>`,
    `  <title type="html">ArXiv Query: ${selfQuery}</title>`,
    "  <id>http://arxiv.org/api/fake-feed</id>",
    "  <updated>2024-01-15T00:00:00-05:00</updated>",
    `  <opensearch:totalResults>${results.length}</opensearch:totalResults>`,
    "  <opensearch:startIndex>0</opensearch:startIndex>",
    `  <opensearch:itemsPerPage>${academicCount(provider, request)}</opensearch:itemsPerPage>`,
    ...results.map(arxivEntry),
    "</feed>",
    "",
  ].join("\n");
}
