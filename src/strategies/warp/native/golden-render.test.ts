/**
 * Golden layouts of warp's native protocol: the state as AgentCPM-Report's released code renders
 * it into its prompts (`_print_tasknote`, `_print_tasknote_hire`, the citation-registry passage
 * list, the empty states), written out here line for line from the specification and compared
 * with what Dossier renders for the same fixed state.
 */

import { describe, expect, it } from "vitest";
import { WARP_QUESTION } from "../../../../test/warp/kit.ts";
import type { Outline } from "../../../core/outline.ts";
import type { Evidence } from "../../../core/source.ts";
import { searchPrompt, writePrompt } from "./prompts.ts";
import { abbreviate, renderPassages, renderSurvey, shownWhole } from "./render.ts";

/** `w<a> w<a+1> … w<b>`: filler words, one approximate token each. */
const seq = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => `w${a + i}`).join(" ");

const TITLE = "Heat pumps in cold climates";
/** Section 1 written (two paragraphs), 1.1 written long, 1.2 not yet, 2 written long, 3 not yet. */
const OUTLINE: Outline = {
  sections: [
    {
      id: "1",
      title: "Efficiency",
      plan: "How efficient heat pumps are in the cold",
      content:
        "Seasonal COP stayed above 2.5 in the trials [E3, E7].\n\nDefrost cycles cost about 10 percent [E3].",
      children: [
        {
          id: "1.1",
          title: "Field trials",
          plan: "What field trials measured",
          content: seq(1, 160),
          children: [],
        },
        { id: "1.2", title: "Lab tests", plan: "What laboratory tests measured", children: [] },
      ],
    },
    {
      id: "2",
      title: "Costs",
      plan: "Installation and running costs",
      content: `${seq(1, 180)} [E9].`,
      children: [],
    },
    { id: "3", title: "Grid", plan: "Winter peak demand\nand the grid", children: [] },
  ],
};
const SECTION_1 =
  "[OK] Seasonal COP stayed above 2.5 in the trials \\cite{textid3, textid7}.  Defrost cycles cost about 10 percent \\cite{textid3}.";

const passage = (n: number, text: string) =>
  ({ id: `E${n}`, sourceId: `S${n}`, text }) as unknown as Evidence;
const PASSAGES = [
  passage(3, "Heat pump trial 3 measured a seasonal coefficient of performance of 2.3 in cold weather."),
  passage(7, "  Installing a heat pump in district 7 cost 10750 euros.\nOn average, in the survey.  "),
];

describe("native layouts, line for line", () => {
  it("the deepener's full report: one line per node, [OK] content or [PLAN] plan, four spaces per level", () => {
    expect(renderSurvey(TITLE, OUTLINE, { mode: "full" }).split("\n")).toEqual([
      "# Title: [OK] Heat pumps in cold climates",
      `# Section-1 [Efficiency]: ${SECTION_1}`,
      `    ## Section-1.1 [Field trials]: [OK] ${seq(1, 160)}`,
      "    ## Section-1.2 [Lab tests]: [PLAN] What laboratory tests measured",
      `# Section-2 [Costs]: [OK] ${seq(1, 180)} \\cite{textid9}.`,
      "# Section-3 [Grid]: [PLAN] Winter peak demand and the grid",
      "",
    ]);
  });

  it("the searcher's outline: every node longer than 150 tokens shortened to its first 100 and last 50", () => {
    expect(renderSurvey(TITLE, OUTLINE, { mode: "abbreviated" }).split("\n")).toEqual([
      "# Title: [OK] Heat pumps in cold climates",
      `# Section-1 [Efficiency]: ${SECTION_1}`,
      `    ## Section-1.1 [Field trials]: [OK] ${seq(1, 100)} ... ${seq(111, 160)}`,
      "    ## Section-1.2 [Lab tests]: [PLAN] What laboratory tests measured",
      `# Section-2 [Costs]: [OK] ${seq(1, 100)} ... ${seq(137, 180)} \\cite{textid9}.`,
      "# Section-3 [Grid]: [PLAN] Winter peak demand and the grid",
      "",
    ]);
  });

  it("the writer's summary at section-1.2: the nodes around the last one written whole, the others shortened", () => {
    expect(renderSurvey(TITLE, OUTLINE, { mode: "local", cursor: "1.2" }).split("\n")).toEqual([
      "# Title: [OK] Heat pumps in cold climates",
      `# Section-1 [Efficiency]: ${SECTION_1}`,
      `    ## Section-1.1 [Field trials]: [OK] ${seq(1, 160)}`,
      "    ## Section-1.2 [Lab tests]: [PLAN] What laboratory tests measured",
      `# Section-2 [Costs]: [OK] ${seq(1, 100)} ... ${seq(137, 180)} \\cite{textid9}.`,
      "# Section-3 [Grid]: [PLAN] Winter peak demand and the grid",
      "",
    ]);
  });

  it("the writer's nearness follows the level of the last node written", () => {
    // Last written a level-1 node (or nothing): every level-1 node whole, no subsection.
    expect([shownWhole("4", 1, "2"), shownWhole("2.1", 2, "2"), shownWhole("1", 1, undefined)]).toEqual([
      true,
      false,
      true,
    ]);
    // Last written 2.1: section 2 and its subsections whole; section 1 and 10's subsections not.
    expect([shownWhole("2", 1, "2.1"), shownWhole("2.3", 2, "2.1"), shownWhole("1", 1, "2.1")]).toEqual([
      true,
      true,
      false,
    ]);
    expect([shownWhole("20.1", 2, "2.1"), shownWhole("2.1.2", 3, "2.1")]).toEqual([false, true]);
    // Last written 2.1.1: 2.1 and its subsections whole; section 2 and 2.2 shortened.
    expect([shownWhole("2.1", 2, "2.1.1"), shownWhole("2.1.3", 3, "2.1.1")]).toEqual([true, true]);
    expect([shownWhole("2", 1, "2.1.1"), shownWhole("2.2", 2, "2.1.1")]).toEqual([false, false]);
  });

  it("shortens by approximate tokens: a word, a mark or a CJK character each", () => {
    expect(abbreviate(seq(1, 150))).toBe(seq(1, 150));
    expect(abbreviate(seq(1, 151))).toBe(`${seq(1, 100)} ... ${seq(102, 151)}`);
    const zh = "热".repeat(200);
    expect(abbreviate(zh)).toBe(`${"热".repeat(100)} ... ${"热".repeat(50)}`);
  });

  it("passages as bibkey:textidN over the passage text, joined by blank lines, no title line", () => {
    expect(renderPassages(PASSAGES).split("\n")).toEqual([
      "bibkey:textid3",
      "Heat pump trial 3 measured a seasonal coefficient of performance of 2.3 in cold weather.",
      "",
      "bibkey:textid7",
      "Installing a heat pump in district 7 cost 10750 euros.",
      "On average, in the survey.",
    ]);
  });

  it("the empty states: no survey, no passage", () => {
    expect(renderSurvey(TITLE, { sections: [] }, { mode: "abbreviated" })).toBe("There is no survey.");
    expect(renderPassages([])).toBe("");
  });

  it("the inputs of the search and write prompts under the released headers", () => {
    const base = { query: WARP_QUESTION, date: "2026-03-01", language: "en" };
    const search = searchPrompt({
      ...base,
      outline: renderSurvey(TITLE, { sections: [] }, { mode: "abbreviated" }),
      instruction: "You need to update outline",
    });
    expect(between(search, "** User Query **", "## Action Example:")).toEqual([
      "** User Query **",
      "How do heat pumps perform in cold climates?",
      "",
      "** Current Article Outline **",
      "There is no survey.",
      "",
      "** Analyst's Instruction **",
      "You need to update outline",
      "",
    ]);
    const write = writePrompt({
      ...base,
      survey: renderSurvey(TITLE, OUTLINE, { mode: "local", cursor: "1.2" }),
      instruction: "You need to update section-1.2",
      information: renderPassages(PASSAGES.slice(0, 1)),
    });
    expect(between(write, "# Section-3 [Grid]", "## Action Example:")).toEqual([
      "# Section-3 [Grid]: [PLAN] Winter peak demand and the grid",
      "",
      "",
      "** Analyzer's Instruction **",
      "You need to update section-1.2",
      "",
      "** Retrieved Information **",
      "bibkey:textid3",
      "Heat pump trial 3 measured a seasonal coefficient of performance of 2.3 in cold weather.",
      "",
    ]);
  });
});

/** The lines of `text` from the one starting with `from` up to (not including) the one starting with `to`. */
function between(text: string, from: string, to: string): string[] {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.startsWith(from));
  const end = lines.findIndex((l, i) => i > start && l.startsWith(to));
  return lines.slice(start, end);
}
