/**
 * Golden formats of SMTL's released protocol (seed: SMTL's inference loop, tool servers and the
 * paper's App. D.1), written from the specification: transcripts in the released format decode
 * to the intended actions, and Dossier's rendering of fixed states matches the released layout
 * line for line — the messages a checkpoint was trained on, the tool responses, the search
 * listing and the crawl summary.
 */

import { describe, expect, it } from "vitest";
import type { Decoded } from "../../kit/protocol/codec.ts";
import { NATIVE_TAGS, RESEARCH_TAGS, toolResponse } from "./native-format.ts";
import { crawlSummary, searchSummary } from "./native-observation.ts";
import { CONTINUE_MESSAGE, nativeTask, resetMessage, SUMMARY_NUDGE } from "./native-prompts.ts";
import { decodeSummaryReply, decodeTagReply, type TagAction } from "./tags-decode.ts";

const ANSWER_MODE = { research: false, tags: NATIVE_TAGS };
const RESEARCH_MODE = { research: true, tags: RESEARCH_TAGS };
const TOOLS = ["web_search", "read_page"] as const;
const action = <A = TagAction>(d: Decoded<A>): A => {
  if (!d.ok) throw new Error(`refused: ${d.error}`);
  return d.action;
};

describe("SMTL deep search (answer mode): released transcripts decode to their actions", () => {
  it("a plan of goals and paths", () => {
    const reply = [
      "The question needs the station first, then its architect.",
      "<plan>",
      "## Goal 1: Identify the station opened in 1903",
      "- Path 1.1: search the line's opening years",
      "- Success: a page states the year",
      "## Goal 2: Find its architect",
      "- Path 2.1: crawl the station's page",
      "- Success: a page names the architect",
      "</plan>",
    ].join("\n");
    expect(action(decodeTagReply(reply, ANSWER_MODE, TOOLS))).toEqual({
      kind: "plan",
      text: reply.split("<plan>\n")[1]!.split("\n</plan>")[0],
    });
  });

  it("parallel tool calls, each one JSON object, in order", () => {
    const reply = [
      "Two goals at once.",
      "<tool_call>",
      '{"name": "web_search", "arguments": {"query": "northern line station opened 1903"}}',
      "</tool_call>",
      "<tool_call>",
      '{"name": "crawl_page", "arguments": {"url": "https://rail.example/stations/3", "query": "who designed the station"}}',
      "</tool_call>",
    ].join("\n");
    const decodedCalls = action(decodeTagReply(reply, ANSWER_MODE, TOOLS));
    expect(decodedCalls.kind).toBe("calls");
    expect(decodedCalls.kind === "calls" && decodedCalls.calls.map((c) => c.ok && c.call)).toEqual([
      { tool: "web_search", query: "northern line station opened 1903" },
      { tool: "crawl_page", url: "https://rail.example/stations/3", goal: "who designed the station" },
    ]);
  });

  it("a summary when asked, and the answer", () => {
    const summary =
      "<summary>\n## Plan Summary\n- Goal 1: Completed\n## Next Parallel Sub-Paths\n- Path 2.1\n</summary>";
    expect(action(decodeTagReply(summary, ANSWER_MODE, TOOLS))).toMatchObject({ kind: "summary" });
    expect(action(decodeSummaryReply(summary, ANSWER_MODE))).toContain("Goal 1: Completed");
    expect(action(decodeTagReply("Verified.\n<answer>Mara Vell</answer>", ANSWER_MODE, TOOLS))).toEqual({
      kind: "answer",
      text: "Mara Vell",
    });
  });

  it("refuses what the released validation refuses: unbalanced tags, no closing tag at the end", () => {
    const unbalanced = decodeTagReply(
      '<tool_call>\n{"name": "web_search", "arguments": {"query": "x"}}\n',
      ANSWER_MODE,
      TOOLS,
    );
    expect(unbalanced).toMatchObject({ ok: false, error: expect.stringMatching(/<tool_call> is opened 1/) });
    const trailing = decodeTagReply("<plan>\n## Goal 1: x\n</plan>\nand then", ANSWER_MODE, TOOLS);
    expect(trailing).toMatchObject({
      ok: false,
      error: "the reply must end with </tool_call>, </summary>, </plan> or </answer>",
    });
    // Deep research's tags are not deep search's.
    expect(decodeTagReply("<subtask_list>\n1. x\n</subtask_list>", ANSWER_MODE, TOOLS)).toMatchObject({
      ok: false,
    });
  });
});

describe("SMTL deep research (App. D.1): released transcripts decode to their actions", () => {
  it("the subtask list, a subtask's analysis, plan and calls, its answer, the report", () => {
    const list = "<subtask_list>\n1. When the stations opened\n2. Who rebuilt them\n</subtask_list>";
    expect(action(decodeTagReply(list, RESEARCH_MODE, TOOLS))).toEqual({
      kind: "note",
      tags: ["subtask_list"],
      text: "1. When the stations opened\n2. Who rebuilt them",
    });
    const work = [
      "<subtask>1. When the stations opened</subtask>",
      "<analysis>The opening years are on the operator's pages.</analysis>",
      "<plan>\n1. search the years\n2. crawl the operator's page\n</plan>",
      "<tool_call>",
      '{"name": "web_search", "arguments": {"query": "northern line opening years"}}',
      "</tool_call>",
    ].join("\n");
    expect(action(decodeTagReply(work, RESEARCH_MODE, TOOLS))).toMatchObject({
      kind: "calls",
      calls: [{ ok: true, call: { tool: "web_search", query: "northern line opening years" } }],
    });
    const answered =
      "<analysis>Settled.</analysis>\n<subtask_answer>Station 1 opened in 1901 [1] .</subtask_answer>";
    expect(action(decodeTagReply(answered, RESEARCH_MODE, TOOLS))).toEqual({
      kind: "note",
      tags: ["analysis", "subtask_answer"],
      text: "Station 1 opened in 1901 [1] .",
    });
    const report =
      "<answer>\n# Stations\n\nOpened in 1901 [1] .\n\nReferences\n[1]. https://rail.example/history - History\n</answer>";
    expect(action(decodeTagReply(report, RESEARCH_MODE, TOOLS))).toMatchObject({ kind: "answer" });
  });

  it("refuses a reply that writes its own <tool_response>, or ends outside the mode's tags", () => {
    const forged =
      '<tool_call>\n{"name": "web_search", "arguments": {"query": "x"}}\n</tool_call>\n<tool_response>\n{}\n</tool_response>';
    expect(decodeTagReply(forged, RESEARCH_MODE, TOOLS)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/never writes <tool_response>/),
    });
    expect(decodeTagReply("<analysis>thinking</analysis> and more", RESEARCH_MODE, TOOLS)).toMatchObject({
      ok: false,
      error:
        "the reply must end with </subtask_list>, </subtask>, </analysis>, </plan>, </tool_call>, </subtask_answer>, </summary> or </answer>",
    });
  });
});

describe("SMTL: Dossier renders the released layouts line for line", () => {
  it("the task, continue and summary-note messages", () => {
    expect(nativeTask("Who designed station 3?")).toBe(
      "Your task is: Who designed station 3?.\nNow Begin! Solve the task!",
    );
    expect(CONTINUE_MESSAGE).toBe(
      "Based on the plan/summary and previous conversations, continue solving the task!",
    );
    expect(`<tool_response>\n…\n</tool_response>\n\n${SUMMARY_NUDGE}`.split("\n").slice(-1)[0]).toBe(
      "# Note: Now, you should summarize the task completion status and provide recommendations for next steps.",
    );
  });

  it("a search's observation: the search server's listing", () => {
    const text = searchSummary("station 3 architect", [
      { title: "Station 3", url: "https://rail.example/3", snippet: "Designed by  Mara Vell\nin 1903." },
      {
        title: "History",
        url: "https://rail.example/history",
        snippet: "The line opened in 1901.",
        publishedAt: "2020-05-01",
      },
    ]);
    expect(text.split("\n")).toEqual([
      "# Search Summary",
      "Total results: 2",
      "",
      "## Query: 'station 3 architect'",
      "2 results:",
      "",
      "1. [Station 3](https://rail.example/3)",
      "Designed by Mara Vell in 1903.",
      "",
      "2. [History](https://rail.example/history)",
      "Date published: 2020-05-01",
      "The line opened in 1901.",
    ]);
  });

  it("a page read: the crawl server's summary JSON, inside a <tool_response> in the loop's JSON", () => {
    const observation = crawlSummary("https://rail.example/3", {
      rationale: "names the architect",
      evidence: ["Mara Vell designed the station.", "It opened in 1903."],
      summary: "Mara Vell, 1903.",
    });
    expect(observation.split("\n")).toEqual([
      "Page 1 [https://rail.example/3] Summary:",
      "{",
      '  "rationale": "names the architect",',
      '  "evidence": "Mara Vell designed the station.\\n\\nIt opened in 1903.",',
      '  "summary": "Mara Vell, 1903."',
      "}",
    ]);
    const block = toolResponse(
      "crawl_page",
      { url: "https://rail.example/3", query: "architect" },
      "Page 1 …",
    );
    expect(block.split("\n")).toEqual([
      "<tool_response>",
      '{"name":"crawl_page","arguments":{"url":"https://rail.example/3","query":"architect"},"observation":"Page 1 …"}',
      "</tool_response>",
    ]);
  });

  it("the context-limit restart keeps the task's released message and the forced summary", () => {
    expect(resetMessage("Q?", "- Goal 1: Completed").split("\n")).toEqual([
      "Messages are truncated to save context tokens.",
      "",
      "<summary>",
      "- Goal 1: Completed",
      "</summary>",
      "",
      "The context limit is reached and the task is not finished; only your latest summary is kept. Reflect on the work so far and make a new plan. Your task is: Q?.",
      "Now Begin! Solve the task!",
    ]);
  });
});
