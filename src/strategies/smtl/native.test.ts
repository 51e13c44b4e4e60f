/**
 * smtl with `protocol: "native"`: a scripted model replying in exactly SMTL's tag format (a
 * plan, parallel `<tool_call>` blocks with JSON calls, `<summary>` when asked, `<answer>`), run
 * through `Dossier.ask` to a verified answer. A malformed reply is sampled again from the same
 * conversation and counted; the seed's sampling is sent; the summary is asked for every 5 steps.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedCall, ScriptReply, ScriptStep } from "../../../test/scripted/scripted-model.ts";
import { readerReply, type SmtlKit, startSmtlKit } from "../../../test/smtl/kit.ts";
import type { DossierEvent, EventOf } from "../../core/events.ts";
import { NO_CALL_YET } from "../../kit/research-done.ts";
import { CONTINUE_MESSAGE, NATIVE_MARKER, SUMMARY_NUDGE } from "./native-prompts.ts";

let kit: SmtlKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const QUESTION = "Which architect designed the station that opened in 1903 on the northern line?";
const READER = "You read a single web page on behalf of a researcher";
const native = (reply: ScriptReply | ((call: ScriptedCall) => ScriptReply)): ScriptStep => ({
  match: (prompt: string) => prompt.includes(NATIVE_MARKER),
  reply,
});
const reader: ScriptStep = { match: (prompt: string) => prompt.includes(READER), reply: readerReply };
const toolCall = (name: string, args: Record<string, string>) =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
const PLAN = [
  "The question chains two facts: the station, then its architect. I plan first.",
  "<plan>",
  "## Goal 1: Identify the station that opened in 1903",
  "- Path 1.1: search the opening years of the line's stations",
  "- Success: a page states a station opened in 1903",
  "## Goal 2: Find the station's architect",
  "- Path 2.1: read the station's page",
  "- Path 2.2: search the station's name with 'architect'",
  "- Success: a page names the architect",
  "</plan>",
].join("\n");
const ofType = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);
/** The links of the pages the latest tool responses listed or read, in order. */
const lastUrls = (call: ScriptedCall) => [
  ...new Set(
    [...call.lastUser.matchAll(/\]\((http[^)\s]+)\)|Page 1 \[(http[^\]\s]+)\]/g)].map((m) => (m[1] ?? m[2])!),
  ),
];
/** An answer citing a page as the checkpoints do: a number and a References entry. */
const citing = (text: string, url: string) => `${text} [1]\n\nReferences:\n[1]. ${url} - Station 3`;

async function ask(steps: ScriptStep[], strategyOptions: Record<string, unknown> = {}) {
  kit = await startSmtlKit(steps);
  const events = kit.events;
  const result = await kit.dossier.ask(QUESTION, {
    strategyOptions: { protocol: "native", ...strategyOptions },
    onEvent: (e) => events.push(e),
  });
  return { result, events, calls: kit.model.calls };
}

describe("smtl, native protocol", () => {
  it("runs SMTL's own format to a verified answer; a malformed reply is re-sampled in the same state and counted", async () => {
    const { result, events, calls } = await ask([
      native(PLAN),
      native(
        `Two searches at once.\n${toolCall("web_search", { query: "station 3 opened 1903" })}\n<tool_call>\n`,
      ),
      native(
        `Two searches at once.\n${toolCall("web_search", { query: "station 3 opened 1903" })}\n${toolCall("web_search", { query: "station 5 architect" })}`,
      ),
      native((call) => {
        const url = /\[Station 3\]\((\S+?)\)/.exec(call.lastUser)?.[1];
        return {
          text: `Read the page of station 3.\n${toolCall("crawl_page", { url: url!, query: "who designed it" })}`,
        };
      }),
      reader,
      native((call) => ({
        text: `Both goals are verified by the page.\n<answer>${citing("Mara Vell", lastUrls(call)[0]!)}</answer>`,
      })),
    ]);
    const nativeCalls = calls.filter((c) => c.system.includes(NATIVE_MARKER));
    expect(nativeCalls).toHaveLength(5);
    // The seed's sampling on every call.
    for (const c of nativeCalls)
      expect(c.options).toMatchObject({ temperature: 1, topP: 0.9, maxOutputTokens: 8192 });
    // After the plan, the message to go on.
    expect(nativeCalls[1]!.lastUser).toBe(CONTINUE_MESSAGE);
    // The malformed reply was not kept: the next call is the same conversation, sampled again.
    expect(nativeCalls[2]!.options.prompt).toEqual(nativeCalls[1]!.options.prompt);
    const warnings = ofType(events, "warning").filter((w) => w.code === "MALFORMED_ACTION");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/<tool_call> is opened 2 time\(s\) and closed 1/);
    expect(ofType(events, "trajectory-step").map((s) => s.action)).toEqual([
      "plan",
      "malformed",
      "search",
      "search",
      "answer",
    ]);
    // The tool results came back as one message of <tool_response> blocks, in the seed's shape:
    // the search server's listing, no evidence ids.
    expect(nativeCalls[3]!.lastUser).toMatch(
      /^<tool_response>\n\{"name":"web_search","arguments":\{"query":"station 3 opened 1903"\},"observation":"# Search Summary\\nTotal results: 3\\n\\n## Query: 'station 3 opened 1903'\\n3 results:\\n\\n1\. \[Station 3\]\(http/,
    );
    expect(nativeCalls[3]!.lastUser).not.toMatch(/\bE\d+\b/);
    // The page read came back as the crawl server's summary JSON.
    expect(nativeCalls[4]!.lastUser).toMatch(
      /"observation":"Page 1 \[http[^\]]+\/page\/3\] Summary:\\n\{\\n {2}\\"rationale\\": /,
    );
    expect(nativeCalls[3]!.lastUser.match(/<tool_response>/g)).toHaveLength(2);
    expect(ofType(events, "step-end").map((e) => e.toolCalls)).toEqual([2, 1]);
    expect(result).toMatchObject({
      status: "completed",
      stopReason: "answered",
      verified: true,
      steps: 2,
      toolCalls: 3,
    });
    expect(result.answer).toBe("Mara Vell [1]");
    expect(result.evidence[0]!.retrievedBy.tool).toBe("read_page");
  });

  it("asks for a <summary> after every 5th step and goes on after it", async () => {
    const steps: ScriptStep[] = [native(PLAN)];
    for (let i = 1; i <= 4; i++)
      steps.push(native(toolCall("web_search", { query: `station ${i} opening` })));
    steps.push(
      native((call) => {
        expect(call.lastUser.endsWith(SUMMARY_NUDGE)).toBe(true);
        return {
          text: "<summary>\n## Plan Summary\nG1 in progress.\n## Execution Status Analysis\n- Goal 1: In Progress\n## Next Parallel Sub-Paths\n- read a station page\n</summary>",
        };
      }),
      native((call) => {
        expect(call.lastUser).toBe(CONTINUE_MESSAGE);
        return {
          text: `<answer>${citing("Mara Vell", /\]\((http[^)\s]+)\)/.exec(call.prompt.split("<tool_response>").at(-1)!)![1]!)}</answer>`,
        };
      }),
    );
    const { result, events, calls } = await ask(steps);
    const nativeCalls = calls.filter((c) => c.system.includes(NATIVE_MARKER));
    // Steps 1 (the plan) to 4 get no request for a summary; the responses after step 5 do.
    for (const c of nativeCalls.slice(0, 5)) expect(c.lastUser).not.toContain(SUMMARY_NUDGE);
    expect(ofType(events, "trajectory-step").map((s) => s.action)).toEqual([
      "plan",
      "search",
      "search",
      "search",
      "search",
      "summary",
      "answer",
    ]);
    expect(result).toMatchObject({ stopReason: "answered", verified: true });
  });

  it("an answer before the first tool call is sent back once; insisting fails the run with NO_RESEARCH", async () => {
    const { result, calls } = await ask([
      native("I already know this.\n<answer>Mara Vell</answer>"),
      native((call) => {
        expect(call.lastUser).toBe(NO_CALL_YET);
        return { text: "It is well known.\n<answer>Mara Vell</answer>" };
      }),
    ]);
    expect(calls).toHaveLength(2);
    expect(kit!.queries).toEqual([]);
    expect(result.status).toBe("failed");
    expect(result.research.error?.code).toBe("NO_RESEARCH");
    expect(result.answer).toBe("");
  });

  it("the user's sampling overrides the seed's", async () => {
    const { calls } = await ask(
      [
        native(PLAN),
        native(toolCall("web_search", { query: "station 3 opened 1903" })),
        native((call) => ({ text: `<answer>${citing("Mara Vell", lastUrls(call)[0]!)}</answer>` })),
      ],
      { temperature: 0.2, topP: 0.5 },
    );
    for (const c of calls) expect(c.options).toMatchObject({ temperature: 0.2, topP: 0.5 });
  });
});
