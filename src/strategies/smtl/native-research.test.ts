/**
 * smtl's deep-research mode with `protocol: "native"`: a scripted model replying in exactly
 * SMTL's tag format — a `<plan>` of subtasks, analysis then parallel `<tool_call>{json}` blocks,
 * a `<summary>` when asked, and the report as the `<answer>` — run through `dossier research`
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
const PLAN = [
  "Two strands: when the stations opened, and who designed and rebuilt them.",
  "<plan>",
  "## Subtask 1: When the stations opened",
  "- Step 1.1: search the opening years of the line's stations",
  "- Done when: a source gives the opening years",
  "## Subtask 2: Who designed and rebuilt them",
  "- Step 2.1: read a station's page",
  "- Done when: a page names the architect and the rebuilding",
  "</plan>",
].join("\n");
const ofType = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);
/** Evidence ids in the newest tool responses of a call. */
const newest = (call: ScriptedCall) => [
  ...new Set([...call.lastUser.matchAll(/\[(E\d+)\]/g)].map((m) => m[1]!)),
];

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
  it("runs SMTL's own format to a full cited report; a malformed reply is re-sampled in the same state and counted", async () => {
    let openings: string[] = [];
    const { result, events, calls } = await research(
      [
        native(PLAN),
        // Ends with no closing tag: malformed, sampled again.
        native(`Subtask 1 first.\n${toolCall("web_search", { query: "station 1 opening" })}\nthen more`),
        native(
          `Subtask 1 first: two searches at once.\n${toolCall("web_search", { query: "station 1 opening" })}\n${toolCall("web_search", { query: "station 4 opening" })}`,
        ),
        native((call) => {
          openings = newest(call);
          const url = /\] Station 3 — (\S+?)\\n/.exec(call.lastUser)?.[1];
          return {
            text: `Subtask 1 is settled; subtask 2 needs a page.\n${toolCall("crawl_page", { url: url!, query: "who designed and rebuilt it" })}`,
          };
        }),
        reader,
        native((call) => {
          expect(call.lastUser.endsWith(SUMMARY_NUDGE)).toBe(true);
          const [page] = newest(call);
          return {
            text: [
              "Both subtasks are settled.",
              "<summary>",
              `- Subtask 1: Answered. Station 1 opened in 1901 [${openings[0]}].`,
              `- Subtask 2: Answered. Mara Vell designed station 3 [${page}].`,
              "Next: write the report.",
              "</summary>",
            ].join("\n"),
          };
        }),
        native((call) => {
          expect(call.lastUser).toBe(CONTINUE_MESSAGE);
          const page = /Subtask 2: Answered\. .*\[(E\d+)\]/.exec(call.prompt)![1];
          return {
            text: [
              "Every subtask is answered; the report follows.",
              "<answer>",
              "# The northern line's stations",
              "",
              "## Introduction",
              "",
              `The stations opened from 1901 [${openings[0]}].`,
              "",
              "## Openings",
              "",
              `Station 2 followed in 1902 [${openings[1]}].`,
              "",
              "## Rebuilding",
              "",
              `Mara Vell designed station 3 [${page}], and an invented source says more [E999].`,
              "",
              "## Conclusion",
              "",
              `The line was built within a few years [${openings[0]}, ${openings[1]}].`,
              "",
              "## References",
              "",
              "1. A list the model wrote",
              "</answer>",
            ].join("\n"),
          };
        }),
      ],
      { refineEvery: 3 },
    );
    expect(calls).toHaveLength(6);
    // The seed's sampling on every call.
    for (const c of calls)
      expect(c.options).toMatchObject({ temperature: 1, topP: 0.9, maxOutputTokens: 8192 });
    expect(calls[1]!.lastUser).toBe(CONTINUE_MESSAGE);
    // The malformed reply was not kept: the next call is the same conversation, sampled again.
    expect(calls[2]!.options.prompt).toEqual(calls[1]!.options.prompt);
    const malformed = ofType(events, "warning").filter((w) => w.code === "MALFORMED_ACTION");
    expect(malformed.map((w) => w.message)).toEqual([expect.stringMatching(/must end with <\/tool_call>/)]);
    // Tool results as one message of <tool_response> blocks in the seed's shape.
    expect(calls[3]!.lastUser).toMatch(
      /^<tool_response>\n\{"name":"web_search","arguments":\{"query":"station 1 opening"\},"observation":"\[E\d+\] /,
    );
    expect(calls[3]!.lastUser.match(/<tool_response>/g)).toHaveLength(2);
    expect(ofType(events, "step-end").map((e) => e.toolCalls)).toEqual([2, 1]);
    expect(ofType(events, "task-framed")[0]!.spec).toMatchObject({ mode: "smtl-native-research" });
    expect(ofType(events, "trajectory-step").map((s) => s.action)).toEqual([
      "plan",
      "malformed",
      "search",
      "search",
      "summary",
      "answer",
    ]);

    // The answer is the report: title, sections, citations numbered, invented id and list dropped.
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
    expect(report.body).not.toContain("A list the model wrote");
    expect(report.body).not.toContain("E999");
    expect(report.checks.citations.byReason).toEqual({ "unknown-evidence": 1 });
    const numbers = citedNumbers(report.body);
    expect(new Set(numbers).size).toBe(3);
    expect(Math.max(...numbers)).toBe(report.references.length);
    expect(report.evidence.some((e) => e.retrievedBy.tool === "read_page")).toBe(true);
  });

  it("at the step cap the report is asked for from the conversation, within <answer>", async () => {
    const { result, calls } = await research(
      [
        native(PLAN),
        native(`Openings first.\n${toolCall("web_search", { query: "station 1 opening" })}`),
        native((call) => {
          expect(call.lastUser.endsWith(NATIVE_REPORT_REQUEST)).toBe(true);
          const [a] = newest(call);
          return {
            text: `The report.\n<answer>\n## Openings\n\nStation 1 opened in 1901 [${a}]. Who rebuilt the stations remains open.\n</answer>`,
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
