import { describe, expect, it } from "vitest";
import { formatProblem, parseToolCalls, tagContent, toolResponse } from "./native-format.ts";

describe("the native format", () => {
  it("accepts balanced tags and a reply that ends with a closing tag", () => {
    expect(formatProblem("Reasoning.\n<plan>\n## Goal 1: x\n</plan>")).toBeNull();
    expect(
      formatProblem('<tool_call>\n{"name":"web_search","arguments":{"query":"a"}}\n</tool_call>'),
    ).toBeNull();
    expect(formatProblem("Done.\n<answer>Mara Vell [E4]</answer>\n")).toBeNull();
  });

  it("refuses an empty reply, an unbalanced tag and a reply that does not end with a closing tag", () => {
    expect(formatProblem("  ")).toMatch(/empty/);
    expect(formatProblem('<tool_call>\n{"name":"web_search"}\n')).toMatch(
      /<tool_call> is opened 1 time\(s\) and closed 0/,
    );
    expect(formatProblem("<plan>a</plan>\nNow I will search.")).toMatch(/must end with/);
    expect(formatProblem("<summary>a</summary><plan>b")).toMatch(/<plan>/);
  });

  it("parses tool calls in order and keeps malformed ones as failed calls", () => {
    const reply = [
      '<tool_call>\n{"name": "web_search", "arguments": {"query": "station 3"}}\n</tool_call>',
      '<tool_call>\n{"name": "crawl_page", "arguments": {"url": "https://x.example/p", "query": "architect"}}\n</tool_call>',
      "<tool_call>\n{'name': 'web_search'}\n</tool_call>",
      '<tool_call>\n{"name": "code_interpreter", "arguments": {}}\n</tool_call>',
      '<tool_call>\n{"name": "crawl_page", "arguments": {"url": "https://x.example/q"}}\n</tool_call>',
    ].join("\n");
    const calls = parseToolCalls(reply, ["web_search", "read_page"]);
    expect(calls.map((c) => (c.ok ? c.call : c.error))).toEqual([
      { tool: "web_search", query: "station 3" },
      { tool: "crawl_page", url: "https://x.example/p", goal: "architect" },
      "the tool call is not a JSON object",
      'unknown tool "code_interpreter"',
      "missing argument(s): query",
    ]);
    expect(parseToolCalls(reply, ["web_search"])[1]).toMatchObject({
      ok: false,
      error: 'unknown tool "crawl_page"',
    });
  });

  it("reads a tag's content and writes a tool response as the seed does", () => {
    expect(tagContent("x <answer> Mara Vell </answer>", "answer")).toBe("Mara Vell");
    expect(tagContent("x", "answer")).toBeNull();
    expect(toolResponse("web_search", { query: "a" }, "[E1] T")).toBe(
      '<tool_response>\n{"name":"web_search","arguments":{"query":"a"},"observation":"[E1] T"}\n</tool_response>',
    );
  });
});
