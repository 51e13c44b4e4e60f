/**
 * The refresh's checks from its searches: each search asked again as first asked, a passage that
 * was only ever a snippet looked for in the snippet the same search serves now for its page (and
 * in the page), and new meaning a result URL no search of the report's runs returned.
 */

import { describe, expect, it } from "vitest";
import type { Evidence } from "../core/source.ts";
import { normalizeUrl } from "../core/url.ts";
import type { SearchResult, ToolResult } from "../tools/types.ts";
import { citedExcerpts, searchAgain, unseenUrls } from "./refresh-check.ts";
import { excerptFound } from "./refresh-pages.ts";

const evidence = (id: string, text: string, tool: string, query?: string): Evidence => ({
  id,
  sourceId: "S1",
  text,
  ...(query ? { query } : {}),
  retrievedBy: { tool, callId: "C1" },
});
const result = (url: string, snippet: string): SearchResult => ({ title: url, url, snippet });

describe("searchAgain", () => {
  it("asks each search past the cache with its number of results and time range, up to the limit", async () => {
    const asked: unknown[] = [];
    const tools = {
      webSearch: async (query: string, options?: object): Promise<ToolResult<SearchResult[]>> => {
        asked.push({ query, ...options });
        return query === "fails"
          ? {
              ok: false,
              error: { code: "PROVIDER_ERROR", message: "x", retryable: false },
              provider: "p",
              callId: "C",
              latencyMs: 0,
            }
          : {
              ok: true,
              value: [result(`https://a.org/${query}`, "s")],
              cached: false,
              provider: "p",
              callId: "C",
              latencyMs: 0,
            };
      },
    };
    const searched = await searchAgain(
      tools,
      [
        { query: "one", topK: 3, timeRange: "month" },
        { query: "fails" },
        { query: "two" },
        { query: "three" },
      ],
      3,
    );
    expect(asked).toEqual([
      { query: "one", topK: 3, timeRange: "month", fresh: true },
      { query: "fails", topK: 5, fresh: true },
      { query: "two", topK: 5, fresh: true },
    ]);
    expect([...searched.keys()]).toEqual(["one", "two"]);
  });
});

describe("citedExcerpts and excerptFound", () => {
  const url = "https://www.a.org/report?utm_source=feed";
  const searched = new Map([
    [
      "solar",
      [
        result("https://a.org/report", "…panel prices fell 20 percent in 2025, the survey…"),
        result("https://b.org/other", "…something else entirely…"),
      ],
    ],
  ]);

  it("pairs a snippet-only passage with the snippets its search serves now for the same page", () => {
    const cited = [
      evidence("E1", "…panel prices fell 20 percent in 2025, the survey…", "web_search", "solar"),
      evidence("E2", "Panel prices fell 20 percent in 2025.", "read_page", "key facts"),
      evidence("E3", "…wind output rose…", "web_search", "wind"),
    ];
    expect(citedExcerpts(cited, url, searched)).toEqual([
      { text: cited[0]!.text, snippets: ["…panel prices fell 20 percent in 2025, the survey…"] },
      { text: cited[1]!.text },
      { text: cited[2]!.text, snippets: [] },
    ]);
  });

  it("finds a snippet-only passage in the snippet served now though the page text lacks it", () => {
    const [snippet] = citedExcerpts(
      [evidence("E1", "…panel prices fell 20 percent in 2025, the survey…", "web_search", "solar")],
      url,
      searched,
    );
    expect(excerptFound(snippet!, "A page whose body says something else.")).toBe(true);
    // Served a changed snippet and absent from the page: lost.
    const changed = {
      text: "…panel prices fell 25 percent in 2025…",
      snippets: ["…panel prices fell 20 percent…"],
    };
    expect(excerptFound(changed, "Panel prices fell 20 percent in 2025.")).toBe(false);
    // Not served again: looked for in the page, normalised.
    expect(
      excerptFound(
        { text: "…prices **fell** 20 percent…", snippets: [] },
        "Panel prices \\*\\*fell\\*\\* 20 percent.",
      ),
    ).toBe(true);
    // A passage read from the page is looked for in the page only.
    expect(excerptFound({ text: "Panel prices fell 20 percent in 2025." }, "Prices rose.")).toBe(false);
  });
});

describe("unseenUrls", () => {
  it("keeps only result URLs no search returned (as dedup keys), each once, in order", () => {
    const seen = new Set(["https://a.org/1", "https://b.org/2?utm_source=x"].map(normalizeUrl));
    const results = [
      result("http://www.a.org/1/", "s"),
      result("https://c.org/3", "s"),
      result("https://b.org/2", "s"),
      result("https://c.org/3?utm_medium=y", "s"),
      result("https://d.org/4", "s"),
    ];
    expect(unseenUrls(results, seen)).toEqual(["https://c.org/3", "https://d.org/4"]);
  });
});
