/**
 * The OpenAlex provider against a loopback server answering in OpenAlex's JSON format.
 */

import { describe, expect, it } from "vitest";
import { type FakeSearch, invertedIndex } from "../../../test/fake-search/index.ts";
import { callContext, rejectionOf, useFakeSearch } from "../../../test/fake-search/provider-test-kit.ts";
import { searchRequestSchema } from "../types.ts";
import {
  abstractFromInvertedIndex,
  createOpenAlexProvider,
  OPENALEX_SELECT,
  openAlexSearchText,
} from "./openalex.ts";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

let fake: FakeSearch;
useFakeSearch((started) => {
  fake = started;
});

const search = (query: string, extra: Record<string, unknown> = {}, email?: string) =>
  createOpenAlexProvider({
    baseUrl: fake.baseUrl("openalex"),
    now: () => NOW,
    ...(email ? { email } : {}),
  }).search(searchRequestSchema.parse({ query, topK: 5, ...extra }), callContext());

const failure = () => rejectionOf(search("x"));

/** A Work as OpenAlex returns it with the fields Dossier selects. */
function work(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    id: "https://openalex.org/W2741809807",
    doi: null,
    title: null,
    display_name: null,
    publication_date: null,
    authorships: [],
    primary_location: null,
    abstract_inverted_index: null,
    ...fields,
  };
}
const answer = (...results: Record<string, unknown>[]) => ({
  kind: "json" as const,
  body: { meta: { count: results.length, page: 1, per_page: 5 }, results, group_by: [] },
});

describe("openalex: the inverted index", () => {
  it("puts every word at each of its positions, whatever the key order", () => {
    expect(
      abstractFromInvertedIndex({ the: [0, 4], of: [3], cat: [1], sat: [2], mat: [5], "mat.": [] }),
    ).toBe("the cat sat of the mat");
    expect(abstractFromInvertedIndex({ z: [2], a: [0] })).toBe("a z");
    expect(abstractFromInvertedIndex(null)).toBe("");
    expect(abstractFromInvertedIndex({})).toBe("");
  });

  it("round-trips the fake's index of a real-looking abstract", () => {
    const text =
      "Despite the success of transformers, the cost of attention grows with the square of length.";
    expect(abstractFromInvertedIndex(invertedIndex(text))).toBe(text);
  });
});

describe("openalex: the request", () => {
  it("asks /works at the overridden base URL with search, per-page, select and the polite-pool mailto", async () => {
    await search("protein folding", { topK: 7 }, "team@example.org");
    const [request] = fake.requestsFor("openalex");
    expect(request?.method).toBe("GET");
    expect(request?.path).toBe("/works");
    expect(request?.query).toEqual({
      search: "protein folding",
      "per-page": "7",
      select: OPENALEX_SELECT,
      mailto: "team@example.org",
    });
  });

  it("sends no mailto without an address; a time range and a language become filters", async () => {
    await search("llm", { timeRange: "month", language: "en" });
    const [request] = fake.requestsFor("openalex");
    expect(request?.query.mailto).toBeUndefined();
    expect(request?.query.filter).toBe("from_publication_date:2026-10-23,language:en");
  });

  it("reads no user text as query syntax", () => {
    expect(openAlexSearchText('"deep learning" AND (vision OR NOT speech) -noise* O’Brien')).toBe(
      "deep learning and vision or not speech noise O’Brien",
    );
  });
});

describe("openalex: parsing works", () => {
  it("maps title, landing page, rebuilt abstract, date, all authors, DOI and PDF", async () => {
    fake.enqueue("openalex", {
      kind: "results",
      results: [
        {
          title: "Sharks &amp; rays: a <i>review</i>",
          url: "https://www.nature.com/articles/s41586-020-1",
          snippet: "We review the sharks and the rays of the world.",
          publishedAt: "2020-03-05",
          authors: ["A. One", "B. Two", "C. Three"],
          doi: "10.1038/s41586-020-1",
          pdfUrl: "https://www.nature.com/articles/s41586-020-1.pdf",
        },
      ],
    });
    expect(await search("sharks")).toEqual([
      {
        title: "Sharks & rays: a review",
        url: "https://www.nature.com/articles/s41586-020-1",
        snippet: "We review the sharks and the rays of the world.",
        publishedAt: "2020-03-05",
        authors: ["A. One", "B. Two", "C. Three"],
        doi: "10.1038/s41586-020-1",
        pdfUrl: "https://www.nature.com/articles/s41586-020-1.pdf",
      },
    ]);
  });

  it("falls back from the landing page to the DOI URL, then to the OpenAlex page; title to display_name", async () => {
    fake.enqueue(
      "openalex",
      answer(
        work({
          title: "Only title",
          doi: "https://doi.org/10.5555/abc",
          primary_location: { landing_page_url: null },
        }),
        work({ display_name: "Display name", title: "Other", primary_location: null }),
        work({ id: null, title: "No URL at all" }),
        work({ title: "Bad landing", primary_location: { landing_page_url: "ftp://x/y" }, doi: "10.1234/z" }),
      ),
    );
    const results = await search("x");
    expect(results.map((r) => [r.title, r.url, r.doi])).toEqual([
      ["Only title", "https://doi.org/10.5555/abc", "10.5555/abc"],
      ["Display name", "https://openalex.org/W2741809807", undefined],
      ["Bad landing", "https://doi.org/10.1234/z", "10.1234/z"],
    ]);
    expect(results[0]).toMatchObject({ snippet: "", authors: [] });
    expect(results[0]!.publishedAt).toBeUndefined();
  });

  it("skips authorships without a name and keeps many authors bounded", async () => {
    const authorships = [
      { author: { display_name: "First Author" } },
      { author: null },
      { author: { display_name: null } },
      ...Array.from({ length: 30 }, (_, i) => ({ author: { display_name: `Author ${i}` } })),
    ];
    fake.enqueue("openalex", answer(work({ title: "Big team", authorships })));
    const [result] = await search("x");
    expect(result!.authors).toHaveLength(20);
    expect(result!.authors[0]).toBe("First Author");
    expect(result!.authors.at(-1)).toBe("et al. (12 more)");
  });
});

describe("openalex: failures are structured errors", () => {
  it("HTTP 500 is a retryable PROVIDER_ERROR", async () => {
    fake.enqueue("openalex", { kind: "error", status: 500 });
    expect(await failure()).toMatchObject({ code: "PROVIDER_ERROR", retryable: true });
  });

  it("HTTP 429 with Retry-After is RATE_LIMITED carrying the wait", async () => {
    fake.enqueue("openalex", { kind: "error", status: 429, headers: { "retry-after": "2" } });
    const error = await failure();
    expect(error).toMatchObject({ code: "RATE_LIMITED", retryable: true });
    expect(error.details.retryAfterMs).toBe(2000);
  });

  it("a 400 names OpenAlex's message and is not retried", async () => {
    fake.enqueue("openalex", {
      kind: "error",
      status: 400,
      body: { error: "Invalid query parameters error.", message: "select is not a valid field" },
    });
    const error = await failure();
    expect(error).toMatchObject({ code: "PROVIDER_ERROR", retryable: false });
    expect(error.message).toContain("select is not a valid field");
  });

  it("truncated JSON is a PROVIDER_ERROR", async () => {
    fake.enqueue("openalex", { kind: "malformed" });
    expect(await failure()).toMatchObject({
      code: "PROVIDER_ERROR",
      message: "openalex: the answer is not JSON",
    });
  });

  it("JSON of the wrong shape is a PROVIDER_ERROR naming the problem", async () => {
    fake.enqueue("openalex", {
      kind: "json",
      body: { meta: {}, results: [{ abstract_inverted_index: { a: ["x"] } }] },
    });
    const error = await failure();
    expect(error).toMatchObject({ code: "PROVIDER_ERROR", retryable: false });
    expect(error.message).toMatch(
      /^openalex: unexpected answer format \(results\.0\.abstract_inverted_index/,
    );
  });
});
