/**
 * What a released checkpoint's reply decodes to in SMTL's tag format (native-format.ts,
 * tags-decode.ts): the format rules and the exact refusal each one gives, the tool calls as the
 * model names them (and the failed calls it is told about), the answer, plan and summary of the
 * deep-search mode and the notes of the deep-research mode (App. D.1).
 */

import { describe, expect, it } from "vitest";
import type { Decoded } from "../../kit/protocol/codec.ts";
import {
  formatProblem,
  NATIVE_TAGS,
  nativeToolList,
  parseToolCalls,
  RESEARCH_TAGS,
  tagContent,
} from "./native-format.ts";
import { decodeSummaryReply, decodeTagReply, noteAction, planText, type TagAction } from "./tags-decode.ts";

const ANSWER_MODE = { research: false, tags: NATIVE_TAGS };
const RESEARCH_MODE = { research: true, tags: RESEARCH_TAGS };
const ALL = ["web_search", "read_page", "local_search", "academic_search"] as const;
const block = (json: string) => `<tool_call>\n${json}\n</tool_call>`;
const action = <A = TagAction>(d: Decoded<A>): A => {
  if (!d.ok) throw new Error(`refused: ${d.error}`);
  return d.action;
};

describe("the tag format's rules", () => {
  it("names the closing tags a reply may end with, in the mode's order", () => {
    expect(formatProblem("no tags at all")).toBe(
      "the reply must end with </tool_call>, </summary>, </plan> or </answer>",
    );
    expect(formatProblem("no tags at all", RESEARCH_TAGS)).toBe(
      "the reply must end with </subtask_list>, </subtask>, </analysis>, </plan>, </tool_call>, </subtask_answer>, </summary> or </answer>",
    );
  });

  it("judges by the answer mode's tags unless told the mode's", () => {
    expect(formatProblem("<subtask>S1</subtask>")).toMatch(/^the reply must end with/);
    expect(formatProblem("<subtask>S1</subtask>", RESEARCH_TAGS)).toBeNull();
    expect(formatProblem("<analysis>a", NATIVE_TAGS.slice())).toBe(
      "the reply must end with </tool_call>, </summary>, </plan> or </answer>",
    );
    expect(formatProblem("<analysis>a</plan>", RESEARCH_TAGS)).toBe(
      "<analysis> is opened 1 time(s) and closed 0 time(s)",
    );
  });

  it("counts every opening and closing of a tag", () => {
    expect(formatProblem("<plan>a</plan><plan>b</plan>")).toBeNull();
    expect(formatProblem("<plan>a</plan>b</plan>")).toBe("<plan> is opened 1 time(s) and closed 2 time(s)");
  });

  it("refuses a reply that writes a tool response of its own, even when it ends well", () => {
    const reply = `${block('{"name":"web_search","arguments":{"query":"a"}}')}\n<tool_response>\n{"observation":"made up"}\n</tool_response>\n${block('{"name":"web_search","arguments":{"query":"b"}}')}`;
    expect(formatProblem(reply)).toBe("a reply never writes <tool_response>: the tools do");
  });

  it("reads the first block of a tag, trimmed, across lines", () => {
    expect(tagContent("<summary>\n a\n b \n</summary> <summary>c</summary>", "summary")).toBe("a\n b");
    expect(tagContent("<plan></plan>", "plan")).toBe("");
    expect(tagContent("</plan>x<plan>", "plan")).toBeNull();
  });
});

describe("the tag format's tool calls", () => {
  it("lists the tools by the model's names with the arguments each takes", () => {
    expect(nativeToolList(ALL)).toEqual([
      { name: "web_search", args: ["query"] },
      { name: "crawl_page", args: ["url", "query"] },
      { name: "local_search", args: ["query"] },
      { name: "academic_search", args: ["query"] },
    ]);
  });

  it("decodes each tool's call with its arguments trimmed, keeping the model's name and arguments", () => {
    const reply = [
      block('{"name": "local_search", "arguments": {"query": "  my notes "}}'),
      block('{"name": "academic_search", "arguments": {"query": "station design"}}'),
      block(
        '{"name": "crawl_page", "arguments": {"url": " HTTPS://x.example/p ", "query": " who designed it "}}',
      ),
    ].join("\n");
    expect(parseToolCalls(reply, ALL)).toEqual([
      {
        ok: true,
        call: { tool: "local_search", query: "my notes" },
        name: "local_search",
        arguments: { query: "  my notes " },
      },
      {
        ok: true,
        call: { tool: "academic_search", query: "station design" },
        name: "academic_search",
        arguments: { query: "station design" },
      },
      {
        ok: true,
        call: { tool: "crawl_page", url: "HTTPS://x.example/p", goal: "who designed it" },
        name: "crawl_page",
        arguments: { url: " HTTPS://x.example/p ", query: " who designed it " },
      },
    ]);
  });

  it("reads a block's JSON padded with any whitespace, a no-break space included", () => {
    const padded = block('\u00a0{"name": "web_search", "arguments": {"query": "station 3"}}\u3000');
    expect(parseToolCalls(padded, ALL)).toMatchObject([
      { ok: true, call: { tool: "web_search", query: "station 3" } },
    ]);
  });

  it("keeps a block that is not JSON as a failed call with its first 300 characters", () => {
    const text = `{'name': 'web_search', 'q': '${"x".repeat(400)}'}`;
    expect(parseToolCalls(block(`  ${text}  `), ALL)).toEqual([
      { ok: false, error: "the tool call is not a JSON object", name: "", arguments: text.slice(0, 300) },
    ]);
  });

  it("refuses an unknown or unnamed tool with the arguments it was given", () => {
    expect(parseToolCalls(block('{"name": "python", "arguments": {"code": "1"}}'), ALL)).toEqual([
      { ok: false, error: 'unknown tool "python"', name: "python", arguments: { code: "1" } },
    ]);
    expect(parseToolCalls(block("null"), ALL)).toEqual([
      { ok: false, error: 'unknown tool ""', name: "", arguments: undefined },
    ]);
    expect(parseToolCalls(block('{"name": 7}'), ALL)[0]).toMatchObject({
      error: 'unknown tool ""',
      name: "",
    });
  });

  it("names every argument that is missing, blank or not text", () => {
    expect(parseToolCalls(block('{"name": "crawl_page"}'), ALL)).toEqual([
      { ok: false, error: "missing argument(s): url, query", name: "crawl_page", arguments: {} },
    ]);
    const blank = parseToolCalls(
      block('{"name": "crawl_page", "arguments": {"url": 5, "query": "  "}}'),
      ALL,
    );
    expect(blank[0]).toMatchObject({
      error: "missing argument(s): url, query",
      arguments: { url: 5, query: "  " },
    });
  });

  it("reads a page only at an http(s) URL", () => {
    const crawl = (url: string) =>
      parseToolCalls(
        block(JSON.stringify({ name: "crawl_page", arguments: { url, query: "architect" } })),
        ALL,
      )[0]!;
    expect(crawl("http://x.example/p").ok).toBe(true);
    for (const url of ["ftp://x.example/p", "see https://x.example/p", "x.example/p"])
      expect(crawl(url)).toEqual({
        ok: false,
        error: "crawl_page needs an http(s) URL",
        name: "crawl_page",
        arguments: { url, query: "architect" },
      });
  });
});

describe("a deep-search (answer mode) reply", () => {
  const call = block('{"name": "web_search", "arguments": {"query": "station 3"}}');

  it("the answer wins over calls written before it", () => {
    expect(action(decodeTagReply(`${call}\n<answer>Mara Vell</answer>`, ANSWER_MODE, ALL))).toEqual({
      kind: "answer",
      text: "Mara Vell",
    });
  });

  it("calls the run does not allow are still calls, each told why it did not run", () => {
    const decoded = action(decodeTagReply(call, ANSWER_MODE, ["read_page"]));
    expect(decoded).toMatchObject({
      kind: "calls",
      calls: [{ ok: false, error: 'unknown tool "web_search"' }],
    });
  });

  it("holds exactly one of plan and summary without calls or an answer", () => {
    expect(action(decodeTagReply("<summary>s</summary>", ANSWER_MODE, ALL))).toEqual({
      kind: "summary",
      text: "s",
    });
    expect(action(decodeTagReply("<plan>p</plan>", ANSWER_MODE, ALL))).toEqual({ kind: "plan", text: "p" });
    expect(decodeTagReply("<plan>p</plan><summary>s</summary>", ANSWER_MODE, ALL)).toEqual({
      ok: false,
      error: "a reply without tool calls or an answer holds exactly one <plan> or <summary>",
    });
  });

  it("is refused first for its format", () => {
    expect(decodeTagReply("   ", ANSWER_MODE, ALL)).toEqual({ ok: false, error: "the reply is empty" });
    expect(decodeTagReply("<subtask>S1</subtask>", ANSWER_MODE, ALL)).toMatchObject({ ok: false });
  });

  it("answers a summary request with the summary only", () => {
    expect(decodeSummaryReply("Status.\n<summary> G1 done </summary>", ANSWER_MODE)).toEqual({
      ok: true,
      action: "G1 done",
    });
    expect(decodeSummaryReply("<plan>a new plan</plan>", ANSWER_MODE)).toEqual({
      ok: false,
      error: "the reply to the summary request holds no <summary>",
    });
    expect(decodeSummaryReply("<summary>a", ANSWER_MODE)).toEqual({
      ok: false,
      error: "<summary> is opened 1 time(s) and closed 0 time(s)",
    });
  });
});

describe("a deep-research reply", () => {
  it("a note holds every research tag the reply has; its text is the last of them in App. D.1's order", () => {
    const reply = "<plan>\n1. search\n</plan>\n<analysis>why</analysis>\n<subtask>S2</subtask>";
    expect(action(decodeTagReply(reply, RESEARCH_MODE, ALL))).toEqual({
      kind: "note",
      tags: ["subtask", "analysis", "plan"],
      text: "1. search",
    });
  });

  it("answers a summary request with the summary, or else the new plan, subtask list or analysis", () => {
    const summary = (reply: string) => action(decodeSummaryReply(reply, RESEARCH_MODE));
    expect(summary("<analysis>a</analysis><plan>p</plan><summary>s</summary>")).toBe("s");
    expect(summary("<analysis>a</analysis><subtask_list>l</subtask_list><plan>p</plan>")).toBe("p");
    expect(summary("<analysis>a</analysis><subtask_list>l</subtask_list>")).toBe("l");
    expect(summary("<summary></summary><analysis>a</analysis>")).toBe("a");
    expect(decodeSummaryReply("<subtask>S1</subtask>", RESEARCH_MODE)).toEqual({
      ok: false,
      error: "the reply to the summary request holds no <summary>",
    });
  });

  it("names a note's trajectory action by its weightiest tag", () => {
    expect(noteAction(["subtask_list", "subtask_answer"])).toBe("subtask-answer");
    expect(noteAction(["subtask", "summary", "subtask_list"])).toBe("subtask-list");
    expect(noteAction(["plan", "summary"])).toBe("summary");
    expect(noteAction(["analysis", "plan", "subtask"])).toBe("plan");
    expect(noteAction(["analysis", "subtask"])).toBe("subtask");
    expect(noteAction(["analysis"])).toBe("analysis");
  });

  it("gives the subtask list as a framing reply's plan", () => {
    const raw = "<subtask_list>1. a\n2. b</subtask_list><analysis>x</analysis>";
    const note = action(decodeTagReply(raw, RESEARCH_MODE, ALL));
    expect(planText(note, raw)).toBe("1. a\n2. b");
    expect(planText({ kind: "note", tags: ["plan"], text: "steps" }, "<plan>steps</plan>")).toBe("steps");
    expect(planText({ kind: "plan", text: "goals" }, "<plan>goals</plan>")).toBe("goals");
    expect(planText({ kind: "summary", text: "s" }, "<summary>s</summary>")).toBe("");
  });
});
