/**
 * The mams protocol's rules (protocol.ts) pinned exactly: what the search and report agents read
 * of their reply schemas and the bounds a reply is held to, how a raw observation is cut into
 * chunks of at most the window (whole blocks packed, a long block cut between paragraphs and then
 * between sentences, its header repeated), the evidence ids a report names, an update that only
 * appends, and the plan as a Markdown list.
 */

import { describe, expect, it } from "vitest";
import { jsonInstruction } from "../../llm/structured.ts";
import {
  chunkObservation,
  evidenceIdsIn,
  onlyAppended,
  planAsList,
  reportReplySchema,
  searchReplySchema,
  splitLong,
} from "./protocol.ts";

const outline = (schema: Parameters<typeof jsonInstruction>[0]) =>
  jsonInstruction(schema).split("\n").slice(1).join("\n");

describe("what the mams agents read of their reply schemas", () => {
  it("the search agent's plan and calls, and the report agent's report", () => {
    expect(outline(searchReplySchema(["web_search", "read_page"]))).toBe(
      [
        "{",
        "  plan: string // the updated plan as a Markdown list: finished steps marked [x], open ones [ ]",
        "  // 1-5 tool calls to run now, all at once; an empty list when the report is complete",
        "  calls?: Array<",
        "    | { // search the web",
        '      tool: "web_search"',
        "      query: string // a web search query",
        '      timeRange?: "day" | "week" | "month" | "year" // limit to results from the last day/week/month/year',
        "    }",
        "    | { // read a page from the results and extract passages about the goal",
        '      tool: "read_page"',
        "      url: string // a URL seen in earlier results",
        "      goal: string // what to look for on the page",
        "    }",
        "  >",
        "}",
      ].join("\n"),
    );
    expect(outline(reportReplySchema)).toBe(
      [
        "{",
        "  report: string // the complete updated report in Markdown, sections as ## headings, citing a listed source as <sup>[n]</sup> right after the cited term (or by evidence id, [E4]); no reference list",
        "}",
      ].join("\n"),
    );
  });

  it("a search reply has a plan and at most 10 calls, none by default", () => {
    const schema = searchReplySchema(["web_search"]);
    const call = { tool: "web_search", query: "station 3" };
    expect(schema.parse({ plan: "- [ ] a" })).toEqual({ plan: "- [ ] a", calls: [] });
    expect(schema.safeParse({ plan: "" }).success).toBe(false);
    expect(schema.safeParse({ plan: "p", calls: Array(10).fill(call) }).success).toBe(true);
    expect(schema.safeParse({ plan: "p", calls: Array(11).fill(call) }).success).toBe(false);
  });
});

describe("splitLong", () => {
  it("joins sentences with one space while they fit, the window included", () => {
    expect(splitLong("Aaaa.   Bbbb.", 11)).toEqual(["Aaaa. Bbbb."]);
    expect(splitLong("Aaaa. Bbbb.", 10)).toEqual(["Aaaa.", "Bbbb."]);
    expect(splitLong("Aaaa! Bbbb? Cc; Dd。Ee", 11)).toEqual(["Aaaa! Bbbb?", "Cc; Dd。Ee"]);
  });

  it("cuts a sentence longer than the window into window-sized pieces, nothing lost", () => {
    expect(splitLong("x".repeat(250), 100)).toEqual(["x".repeat(100), "x".repeat(100), "x".repeat(50)]);
    expect(splitLong(`Short. ${"y".repeat(30)}`, 20)).toEqual(["Short.", "y".repeat(20), "y".repeat(10)]);
  });

  it("measured by an uneven size, each piece still fits and the pieces give back the text", () => {
    const size = (t: string) => [...t].reduce((n, c) => n + (c === "W" ? 3 : 1), 0);
    const text = `${"W".repeat(30)}${"x".repeat(70)}`;
    const pieces = splitLong(text, 50, size);
    for (const p of pieces) expect(size(p)).toBeLessThanOrEqual(50);
    expect(pieces.join("")).toBe(text);
    expect(pieces[0]!.length).toBeGreaterThanOrEqual(15);
    // A character bigger than the window is a piece of its own.
    expect(splitLong("WW", 2, size)).toEqual(["W", "W"]);
  });
});

describe("chunkObservation, exactly", () => {
  it("packs whole blocks while they fit the window, the window included", () => {
    const blocks = [
      { header: "[E1]", text: "aaaaaaa" },
      { header: "[E2]", text: "b" },
      { header: "[E3]", text: "c" },
    ];
    expect(chunkObservation(blocks, 20)).toEqual(["[E1]\naaaaaaa\n\n[E2]\nb", "[E3]\nc"]);
    expect(chunkObservation([{ header: "[E1]", text: "d".repeat(15) }], 20)).toEqual([
      `[E1]\n${"d".repeat(15)}`,
    ]);
    expect(chunkObservation([], 20)).toEqual([]);
  });

  it("cuts a long block between its paragraphs, trimmed, into pieces of the window less the continued header", () => {
    // Room for paragraphs: 40 − "[E2] B (continued)\n" = 21 characters.
    const text = "  P1 aaaaaaaaaa\n\nP2 bbb\n  \nP3 cccccccccccccc\n\n  \n";
    expect(chunkObservation([{ header: "[E2] B", text }], 40)).toEqual([
      "[E2] B\nP1 aaaaaaaaaa\n\nP2 bbb",
      "[E2] B (continued)\nP3 cccccccccccccc",
    ]);
    const wider = "P1 aaaaaaaaaa\n\nP2 bbbb\n\nP3 cccccccccccccc";
    expect(chunkObservation([{ header: "[E2] B", text: wider }], 40)).toEqual([
      "[E2] B\nP1 aaaaaaaaaa",
      "[E2] B (continued)\nP2 bbbb",
      "[E2] B (continued)\nP3 cccccccccccccc",
    ]);
  });

  it("keeps a paragraph that fits verbatim, and cuts one that does not between sentences", () => {
    // Room: 40 − "[E3] (continued)\n" = 23 characters.
    const fits = "Line one.\nLine two, ok.\n\nTail end of the page.";
    expect(chunkObservation([{ header: "[E3]", text: fits }], 40)).toEqual([
      "[E3]\nLine one.\nLine two, ok.",
      "[E3] (continued)\nTail end of the page.",
    ]);
    const long = "One two. Three four. Five six seven.\n\nEnd.";
    expect(chunkObservation([{ header: "[E3]", text: long }], 40)).toEqual([
      "[E3]\nOne two. Three four.",
      "[E3] (continued)\nFive six seven.\n\nEnd.",
    ]);
  });

  it("a block with no text that does not fit adds no chunk", () => {
    expect(chunkObservation([{ header: `[E9] ${"h".repeat(50)}`, text: " \n\n " }], 40)).toEqual([]);
  });
});

describe("the evidence ids a report names", () => {
  it("only inside brackets, whole ids, once each, in order", () => {
    expect(
      evidenceIdsIn("Built [source E12, E3] then [E3]; E6 bare, [E7b], [XE8], [E10; note] and [E5]."),
    ).toEqual(["E12", "E3", "E10", "E5"]);
  });
});

describe("an update that only appends", () => {
  it("ignores the whitespace around both texts and needs something added", () => {
    expect(onlyAppended("## A\n\nx  ", "## A\n\nx\n\ny")).toBe(true);
    expect(onlyAppended("## A", "\n  ## A\n\ny")).toBe(true);
    expect(onlyAppended("## A", "## A  ")).toBe(false);
  });
});

describe("planAsList", () => {
  it("makes every line an item, Windows line ends and blank lines included, and trims items", () => {
    expect(planAsList("Find a\r\nCompare b\r\n   \n- [x] c   \nThen  d")).toBe(
      "- Find a\n- Compare b\n- [x] c\n- Then  d",
    );
    expect(planAsList("Compare a - b\n - one space item\n12. twelfth\n Indented once  ")).toBe(
      "- Compare a - b\n - one space item\n12. twelfth\n- Indented once",
    );
    expect(planAsList("1) first\n   indented detail\n2. second")).toBe(
      "1) first\n   indented detail\n2. second",
    );
  });
});
