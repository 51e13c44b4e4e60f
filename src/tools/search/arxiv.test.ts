/**
 * The arXiv provider against a loopback server answering in arXiv's Atom format.
 */

import { describe, expect, it } from "vitest";
import { arxivErrorFeed, type FakeSearch } from "../../../test/fake-search/index.ts";
import {
  callContext,
  preloadAtomParser,
  rejectionOf,
  useFakeSearch,
} from "../../../test/fake-search/provider-test-kit.ts";
import type { DossierError } from "../../core/errors.ts";
import { searchRequestSchema } from "../types.ts";
import { MAX_ABSTRACT_CHARS } from "./academic-result.ts";
import { arxivSearchQuery, createArxivProvider } from "./arxiv.ts";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

preloadAtomParser();

let fake: FakeSearch;
useFakeSearch((started) => {
  fake = started;
});

const ctx = callContext;
const provider = () => createArxivProvider({ baseUrl: fake.baseUrl("arxiv"), now: () => NOW });
const search = (query: string, extra: Record<string, unknown> = {}) =>
  provider().search(searchRequestSchema.parse({ query, topK: 5, ...extra }), ctx());

const failure = () => rejectionOf(search("transformers"));

/** A feed as arXiv writes it, with `entries` as the raw XML of its entries. */
function feed(...entries: string[]): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    '  <link href="http://arxiv.org/api/query?search_query%3Dall%3Ax" rel="self" type="application/atom+xml"/>',
    '  <title type="html">ArXiv Query: search_query=all:x&amp;id_list=&amp;start=0&amp;max_results=5</title>',
    "  <id>http://arxiv.org/api/abc</id>",
    "  <updated>2024-01-15T00:00:00-05:00</updated>",
    '  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">2</opensearch:totalResults>',
    ...entries,
    "</feed>",
  ].join("\n");
}

describe("arxiv: the request", () => {
  it("asks /query at the overridden base URL with the query's words in all fields, the count and relevance order", async () => {
    await search("Retrieval-augmented generation", { topK: 3 });
    const [request] = fake.requestsFor("arxiv");
    expect(request?.method).toBe("GET");
    expect(request?.path).toBe("/query");
    expect(request?.query).toEqual({
      search_query: "all:retrieval AND all:augmented AND all:generation",
      start: "0",
      max_results: "3",
      sortBy: "relevance",
      sortOrder: "descending",
    });
  });

  it("reads no user text as query syntax: prefixes, operators, quotes and grouping become plain words", () => {
    const q = arxivSearchQuery({ query: 'ti:"graph neural" AND (au:smith OR cat:cs.LG) ANDNOT -x*' }, NOW);
    expect(q).toBe(
      "all:ti AND all:graph AND all:neural AND all:au AND all:smith AND all:cat AND all:cs AND all:lg AND all:andnot AND all:x",
    );
    expect(arxivSearchQuery({ query: "what is the state of the art in protein folding" }, NOW)).toBe(
      "all:state AND all:art AND all:protein AND all:folding",
    );
    expect(arxivSearchQuery({ query: "the of" }, NOW)).toBe("all:the AND all:of");
  });

  it("limits a time range by submission date", () => {
    expect(arxivSearchQuery({ query: "llm", timeRange: "week" }, NOW)).toBe(
      "all:llm AND submittedDate:[202611151200 TO 202611221200]",
    );
  });

  it("a query without words is refused before any request", async () => {
    const error = await search('"" ()').catch((e: unknown) => e as DossierError);
    expect(error).toMatchObject({ code: "INPUT_INVALID" });
    expect(fake.requests).toHaveLength(0);
  });
});

describe("arxiv: parsing the Atom feed", () => {
  it("maps entries to title, abs URL, abstract, first-version date, authors, PDF and DOI", async () => {
    fake.enqueue("arxiv", {
      kind: "results",
      results: [
        {
          title: "Graphs &amp; <i>Transformers</i>: a survey",
          url: "http://arxiv.org/abs/2401.01234v2",
          snippet: "We survey\n  graph transformers &lt;fast&gt; and &quot;slow&quot;.",
          publishedAt: "2024-01-03T18:59:59Z",
          authors: ["Ada Lovelace", "Charles Babbage", "Émilie du Châtelet"],
          doi: "10.1000/xyz123",
          pdfUrl: "http://arxiv.org/pdf/2401.01234v2",
        },
        { title: "Second", url: "http://arxiv.org/abs/2402.00001v1", snippet: "Two.", authors: ["Solo"] },
      ],
    });
    const results = await search("graph transformers");
    expect(results).toEqual([
      {
        title: "Graphs & Transformers: a survey",
        url: "http://arxiv.org/abs/2401.01234v2",
        snippet: 'We survey graph transformers <fast> and "slow".',
        publishedAt: "2024-01-03T18:59:59.000Z",
        authors: ["Ada Lovelace", "Charles Babbage", "Émilie du Châtelet"],
        doi: "10.1000/xyz123",
        pdfUrl: "http://arxiv.org/pdf/2401.01234v2",
      },
      {
        title: "Second",
        url: "http://arxiv.org/abs/2402.00001v1",
        snippet: "Two.",
        authors: ["Solo"],
        pdfUrl: "http://arxiv.org/pdf/2402.00001v1",
      },
    ]);
  });

  it("keeps entries with missing fields, drops those without a URL, bounds long abstracts", async () => {
    const long = "word ".repeat(600);
    fake.enqueue("arxiv", {
      kind: "raw",
      body: feed(
        "<entry><id>http://arxiv.org/abs/1</id></entry>",
        "<entry><title>No id, no link</title><summary>lost</summary></entry>",
        `<entry><id>http://arxiv.org/abs/2</id><title>Long</title><summary>${long}</summary><author><name> </name></author></entry>`,
      ),
    });
    const results = await search("anything");
    expect(results.map((r) => r.url)).toEqual(["http://arxiv.org/abs/1", "http://arxiv.org/abs/2"]);
    expect(results[0]).toEqual({
      title: "http://arxiv.org/abs/1",
      url: "http://arxiv.org/abs/1",
      snippet: "",
      authors: [],
    });
    expect(results[1]!.snippet.length).toBeLessThanOrEqual(MAX_ABSTRACT_CHARS);
    expect(results[1]!.snippet.endsWith("…")).toBe(true);
    expect(results[1]!.authors).toEqual([]);
  });

  it("an empty feed is no results", async () => {
    fake.enqueue("arxiv", { kind: "results", results: [] });
    expect(await search("nothing matches")).toEqual([]);
  });
});

describe("arxiv: failures are structured errors", () => {
  it("HTTP 500 is a retryable PROVIDER_ERROR", async () => {
    fake.enqueue("arxiv", { kind: "error", status: 500 });
    const error = await failure();
    expect(error).toMatchObject({ code: "PROVIDER_ERROR", retryable: true });
    expect(error.details).toMatchObject({ provider: "arxiv", status: 500 });
  });

  it("HTTP 429 with Retry-After is RATE_LIMITED carrying the wait", async () => {
    fake.enqueue("arxiv", { kind: "error", status: 429, headers: { "retry-after": "7" } });
    const error = await failure();
    expect(error).toMatchObject({ code: "RATE_LIMITED", retryable: true });
    expect(error.details.retryAfterMs).toBe(7000);
  });

  it("an error feed (HTTP 400) is a PROVIDER_ERROR quoting arXiv, not retried", async () => {
    fake.enqueue("arxiv", { kind: "error", status: 400 });
    const error = await failure();
    expect(error.code).toBe("PROVIDER_ERROR");
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("arxiv: the API refused the query (fake-search: scripted error 400)");
  });

  it("an error feed answered with 200 is refused the same way", async () => {
    fake.enqueue("arxiv", { kind: "raw", body: arxivErrorFeed("max_results must be non-negative") });
    const error = await failure();
    expect(error.message).toBe("arxiv: the API refused the query (max_results must be non-negative)");
  });

  it("truncated XML is a retryable PROVIDER_ERROR", async () => {
    fake.enqueue("arxiv", { kind: "malformed" });
    const error = await failure();
    expect(error.code).toBe("PROVIDER_ERROR");
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/^arxiv: the answer is not an Atom feed \(/);
  });

  it("well-formed XML that is not an Atom feed, and an empty body, are PROVIDER_ERRORs", async () => {
    fake.enqueue("arxiv", { kind: "raw", body: "<html><body>Service unavailable</body></html>" });
    expect((await failure()).message).toBe("arxiv: the answer is not an Atom feed (root element <html>)");
    fake.enqueue("arxiv", { kind: "raw", body: "" });
    expect((await failure()).message).toBe("arxiv: the answer is not an Atom feed (empty answer)");
  });

  it("an unreachable server is a NETWORK_ERROR", async () => {
    const url = fake.baseUrl("arxiv");
    await fake.close();
    const error = await createArxivProvider({ baseUrl: url })
      .search(searchRequestSchema.parse({ query: "x" }), ctx())
      .catch((e: unknown) => e as DossierError);
    expect(error).toMatchObject({ code: "NETWORK_ERROR", retryable: true });
  });
});
