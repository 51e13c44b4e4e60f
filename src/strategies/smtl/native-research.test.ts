/**
 * smtl's deep-research mode with `protocol: "native"`: a scripted model replying in exactly
 * SMTL's deep-research format (App. D.1) — `<subtask_list>`, then per subtask `<subtask>`,
 * `<analysis>`, `<plan>` and parallel `<tool_call>{json}` blocks, `<subtask_answer>`, a
 * `<summary>` when asked, and the report with `[n]` citations and References as the `<answer>` —
 * run through `dossier research`
 * (no mode given: the research mode is the default) to a full cited report. A malformed reply is
 * sampled again from the same conversation and counted; at the step cap the report is asked
 * for from the conversation; an answer before any tool call, given twice, fails the run.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedCall, ScriptReply, ScriptStep } from "../../../test/scripted/scripted-model.ts";
import { readerReply, type SmtlKit, startSmtlKit } from "../../../test/smtl/kit.ts";
import { citedNumbers } from "../../core/citations.ts";
import type { DossierEvent, EventOf } from "../../core/events.ts";
import { NO_CALL_YET } from "../../kit/research-done.ts";
import { CONTINUE_MESSAGE, SUMMARY_NUDGE } from "./native-prompts.ts";
import { NATIVE_REPORT_REQUEST, NATIVE_RESEARCH_MARKER } from "./native-research-prompts.ts";

let kit: SmtlKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const QUESTION = "How were the stations of the northern line built and rebuilt?";
const READER = "You read a single web page on behalf of a researcher";
const native = (reply: ScriptReply | ((call: ScriptedCall) => ScriptReply)): ScriptStep => ({
  match: (prompt: string) => prompt.includes(NATIVE_RESEARCH_MARKER),
  reply,
});
const reader: ScriptStep = { match: (prompt: string) => prompt.includes(READER), reply: readerReply };
const toolCall = (name: string, args: Record<string, string>) =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
const ofType = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);

async function research(steps: ScriptStep[], strategyOptions: Record<string, unknown> = {}) {
  kit = await startSmtlKit(steps);
  const events: DossierEvent[] = [];
  const result = await kit.dossier.research(QUESTION, {
    strategy: "smtl",
    strategyOptions: { protocol: "native", ...strategyOptions },
    onEvent: (e) => events.push(e),
  }).done;
  const calls = kit.model.calls.filter((c) => c.system.includes(NATIVE_RESEARCH_MARKER));
  return { result, events, calls };
}

describe("smtl deep research, native protocol", () => {
  it("runs SMTL's deep-research tags (App. D.1) to a full cited report; a malformed reply is re-sampled in the same state and counted", async () => {
    let origin = "";
    const page = (n: number) => `${origin}/page/${n}`;
    const { result, events, calls } = await research(
      [
        native(
          "Two strands.\n<subtask_list>\n1. When the stations opened\n2. Who designed and rebuilt them\n</subtask_list>",
        ),
        // Ends with no closing tag: malformed, sampled again.
        native(
          `<subtask>1. When the stations opened</subtask>\n${toolCall("web_search", { query: "station 1 opening" })}\nthen more`,
        ),
        native(
          [
            "<subtask>1. When the stations opened</subtask>",
            "<analysis>The opening years are on the station pages; two searches at once.</analysis>",
            "<plan>\n1. search the opening years\n2. confirm on a station page\n</plan>",
            toolCall("web_search", { query: "station 1 opening" }),
            toolCall("web_search", { query: "station 4 opening" }),
          ].join("\n"),
        ),
        native((call) => {
          origin = /\(([^)\s]+)\/page\/1\)/.exec(call.lastUser)![1]!;
          return {
            text: "<analysis>The listing gives the years.</analysis>\n<subtask_answer>Station 1 opened in 1901 [1].</subtask_answer>",
          };
        }),
        native((call) => {
          expect(call.lastUser).toBe(CONTINUE_MESSAGE);
          return {
            text: `<subtask>2. Who designed and rebuilt them</subtask>\n<analysis>A station page should name the architect.</analysis>\n${toolCall("crawl_page", { url: page(3), query: "who designed and rebuilt it" })}`,
          };
        }),
        reader,
        native((call) => {
          expect(call.lastUser.endsWith(SUMMARY_NUDGE)).toBe(true);
          return {
            text: "<summary>\n- Subtask 1: answered.\n- Subtask 2: the page names the architect.\n</summary>",
          };
        }),
        native((call) => {
          expect(call.lastUser).toBe(CONTINUE_MESSAGE);
          return { text: "<subtask_answer>Mara Vell designed station 3 [1].</subtask_answer>" };
        }),
        native(() => ({
          text: [
            "Every subtask is answered; the report follows.",
            "<answer>",
            "# The northern line's stations",
            "",
            "## Introduction",
            "",
            "The stations opened from 1901 [1] .",
            "",
            "## Openings",
            "",
            "Station 2 followed in 1902 [2] .",
            "",
            "## Rebuilding",
            "",
            "Mara Vell designed station 3 [3], and sources never read say more [4] [5].",
            "",
            "## Conclusion",
            "",
            "The line was built within a few years [1, 2].",
            "",
            "## References",
            "",
            `[1]. ${page(1)} - Station 1`,
            `[2]. ${page(2)} - Station 2`,
            `[3]. ${page(3)} - Station 3`,
            "[4]. https://example.org/never-read - A page never read",
            "</answer>",
          ].join("\n"),
        })),
      ],
      { refineEvery: 4 },
    );
    expect(calls).toHaveLength(8);
    // The seed's sampling on every call.
    for (const c of calls)
      expect(c.options).toMatchObject({ temperature: 1, topP: 0.9, maxOutputTokens: 8192 });
    // The released loop's messages: the task, then the message to go on after a subtask list.
    expect(calls[0]!.lastUser).toBe(`Your task is: ${QUESTION}.\nNow Begin! Solve the task!`);
    expect(calls[1]!.lastUser).toBe(CONTINUE_MESSAGE);
    // The malformed reply was not kept: the next call is the same conversation, sampled again.
    expect(calls[2]!.options.prompt).toEqual(calls[1]!.options.prompt);
    const malformed = ofType(events, "warning").filter((w) => w.code === "MALFORMED_ACTION");
    expect(malformed.map((w) => w.message)).toEqual([
      expect.stringMatching(/must end with <\/subtask_list>, .*<\/subtask_answer>/),
    ]);
    // Tool results as one message of <tool_response> blocks, laid out as the released servers do.
    expect(calls[3]!.lastUser).toMatch(
      /^<tool_response>\n\{"name":"web_search","arguments":\{"query":"station 1 opening"\},"observation":"# Search Summary\\n/,
    );
    expect(calls[3]!.lastUser.match(/<tool_response>/g)).toHaveLength(2);
    expect(ofType(events, "step-end").map((e) => e.toolCalls)).toEqual([2, 1]);
    expect(ofType(events, "task-framed")[0]!.spec).toMatchObject({
      mode: "smtl-native-research",
      plan: "1. When the stations opened\n2. Who designed and rebuilt them",
    });
    expect(ofType(events, "trajectory-step").map((s) => s.action)).toEqual([
      "subtask-list",
      "malformed",
      "search",
      "subtask-answer",
      "search",
      "summary",
      "subtask-answer",
      "answer",
    ]);
    // [4] names a page never read, [5] has no entry: both named, dropped and counted.
    const unresolved = ofType(events, "warning").filter((w) => w.code === "CITATION_UNRESOLVED");
    expect(unresolved.map((w) => w.message)).toEqual([expect.stringMatching(/\[4\], \[5\]/)]);

    // The answer is the report: title, sections, numbers resolved through the References' URLs.
    expect(result.status).toBe("completed");
    expect(result.stopReason).toBe("completed");
    const report = result.report!;
    expect(report.title).toBe("The northern line's stations");
    expect(report.outline.sections.map((s) => s.title)).toEqual([
      "Introduction",
      "Openings",
      "Rebuilding",
      "Conclusion",
    ]);
    expect(report.body).not.toContain("never-read");
    expect(report.checks.citations.byReason).toEqual({ "bare-number": 2 });
    expect(report.references.map((r) => r.locator)).toEqual([page(1), page(2), page(3)]);
    const numbers = citedNumbers(report.body);
    expect(new Set(numbers)).toEqual(new Set([1, 2, 3]));
    // Page 3 was read: its citation rests on the passages read.
    const third = report.evidence.filter((e) => report.references[2]!.sourceId === e.sourceId);
    expect(third.some((e) => e.retrievedBy.tool === "read_page")).toBe(true);
  });

  it("at the step cap the report is asked for from the conversation, within <answer>", async () => {
    const { result, calls } = await research(
      [
        native("<subtask_list>\n1. When the stations opened\n</subtask_list>"),
        native(
          `<subtask>1. Openings</subtask>\n<analysis>Search.</analysis>\n${toolCall("web_search", { query: "station 1 opening" })}`,
        ),
        native((call) => {
          expect(call.lastUser.endsWith(NATIVE_REPORT_REQUEST)).toBe(true);
          const url = /\]\((http[^)\s]+\/page\/1)\)/.exec(call.prompt)![1];
          return {
            text: `The report.\n<answer>\n## Openings\n\nStation 1 opened in 1901 [1]. Who rebuilt the stations remains open.\n\nReferences\n[1]. ${url} - Station 1\n</answer>`,
          };
        }),
      ],
      { maxSteps: 2 },
    );
    expect(calls).toHaveLength(3);
    expect(result.status).toBe("completed");
    expect(result.stopReason).toBe("step-cap");
    expect(citedNumbers(result.report!.body)).toEqual([1]);
    expect(result.report!.body).toContain("remains open");
  });

  it("an answer before the first tool call is sent back once; insisting fails the run with NO_RESEARCH", async () => {
    const { result, calls } = await research([
      native("I know this.\n<answer>\n## Stations\n\nThey were built long ago.\n</answer>"),
      native((call) => {
        expect(call.lastUser).toBe(NO_CALL_YET);
        return { text: "Still known.\n<answer>\n## Stations\n\nThey were built long ago.\n</answer>" };
      }),
    ]);
    expect(calls).toHaveLength(2);
    expect(kit!.queries).toEqual([]);
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({
      code: "NO_RESEARCH",
      message: expect.stringMatching(/answered twice before its first tool call/),
    });
  });
});
