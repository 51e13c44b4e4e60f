/**
 * Which cited passages a refresh pairs with the snippets served now: those an academic search
 * gave, like a web search's, are snippets of the page; one with no query to ask again gets none
 * (it is looked for in the page); a passage read from the page gets no snippet list at all.
 */

import { describe, expect, it } from "vitest";
import type { Evidence } from "../core/source.ts";
import type { SearchResult } from "../tools/types.ts";
import { citedExcerpts } from "./refresh-check.ts";

const URL = "https://arxiv.org/abs/2501.00001";
const cite = (text: string, tool: string, query?: string): Evidence => ({
  id: "E1",
  sourceId: "S1",
  text,
  ...(query ? { query } : {}),
  retrievedBy: { tool, callId: "C1" },
});
const searched = new Map<string, SearchResult[]>([
  [
    "battery papers",
    [
      { title: "Paper", url: URL, snippet: "We measure cell costs of 115 USD/kWh." },
      { title: "Paper, no snippet", url: URL, snippet: "" },
    ],
  ],
]);

describe("citedExcerpts by the tool that gave the passage", () => {
  it("pairs an academic search's passage with the abstract its search serves now", () => {
    expect(
      citedExcerpts([cite("…cell costs of 115…", "academic_search", "battery papers")], URL, searched),
    ).toEqual([{ text: "…cell costs of 115…", snippets: ["We measure cell costs of 115 USD/kWh."] }]);
  });

  it("gives a snippet passage without a query no snippet, and a page excerpt no snippet list", () => {
    expect(
      citedExcerpts(
        [
          cite("…cell costs of 115…", "web_search"),
          cite("Cell costs of 115 USD/kWh.", "fetch_page", "battery papers"),
        ],
        URL,
        searched,
      ),
    ).toEqual([{ text: "…cell costs of 115…", snippets: [] }, { text: "Cell costs of 115 USD/kWh." }]);
  });
});
