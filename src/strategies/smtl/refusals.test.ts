/**
 * Every protocol of smtl reports a refused reply on the call that produced it: the call's
 * `llm-end` counts one format error, its recorded `llm-call` names it, and the re-sample (tags)
 * or re-ask (JSON) that follows is recorded as a repair round of the same step — in both modes
 * and both protocols, so the training layer sees every violation the loop refused.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedCall, ScriptReply, ScriptStep } from "../../../test/scripted/scripted-model.ts";
import { on, type SmtlKit, shownIds, startSmtlKit } from "../../../test/smtl/kit.ts";
import type { DossierEvent, EventOf } from "../../core/events.ts";
import { NATIVE_MARKER } from "./native-prompts.ts";
import { NATIVE_RESEARCH_MARKER } from "./native-research-prompts.ts";
import { RESEARCH_MODE_LINES } from "./research-prompts.ts";

let kit: SmtlKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const QUESTION = "Which architect designed the station that opened in 1903 on the northern line?";
const ofType = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);
const marked = (marker: string, reply: ScriptReply | ((call: ScriptedCall) => ScriptReply)): ScriptStep => ({
  match: (prompt: string) => prompt.includes(marker),
  reply,
});
const toolCall = (query: string) =>
  `<tool_call>\n${JSON.stringify({ name: "web_search", arguments: { query } })}\n</tool_call>`;
const search = (query: string) => ({ tool: "web_search", query });
const newest = (call: ScriptedCall) => shownIds(call.lastUser);

async function run(steps: ScriptStep[], strategyOptions: Record<string, unknown>) {
  kit = await startSmtlKit(steps);
  const events: DossierEvent[] = [];
  const result = await kit.dossier.research(QUESTION, {
    strategy: "smtl",
    strategyOptions,
    recordCalls: true,
    onEvent: (e) => events.push(e),
  }).done;
  return { result, events };
}

/** The one refused call: its llm-end and llm-call report `error`, and the next call repairs its step. */
function expectOneRefusal(events: DossierEvent[], error: RegExp) {
  const recorded = ofType(events, "llm-call").filter((c) => c.role === "searcher");
  const refused = recorded.filter((c) => c.formatErrors.length > 0);
  expect(refused).toHaveLength(1);
  expect(refused[0]!.formatErrors[0]).toMatch(error);
  const ends = ofType(events, "llm-end").filter((e) => e.role === "searcher");
  expect(ends.filter((e) => e.formatErrors > 0).map((e) => e.callId)).toEqual([refused[0]!.callId]);
  const at = recorded.indexOf(refused[0]!);
  expect(recorded[at + 1]!.step).toBe(refused[0]!.step);
  expect(ofType(events, "warning").filter((w) => w.code === "MALFORMED_ACTION")).toHaveLength(1);
}

describe("smtl: a refused reply is the call's recorded format error", () => {
  it("JSON, answer mode: an answer citing evidence never retrieved", async () => {
    const plan = {
      thought: "one goal",
      goals: [{ goal: "find the architect", successCriterion: "a page names one", paths: ["search"] }],
      calls: [search("station 3 opened 1903")],
    };
    const verification = (id: string) => [{ goal: "G1", evidence: [id] }];
    const { result, events } = await run(
      [
        on("plan", { json: plan }),
        on("step", {
          json: {
            thought: "done",
            answer: { text: "Mara Vell [E99]", citations: ["E99"], verification: verification("E99") },
          },
        }),
        on("step", (call) => {
          const id = newest(call)[0] ?? "E1";
          return {
            json: {
              thought: "done",
              answer: { text: `Mara Vell [${id}]`, citations: [id], verification: verification(id) },
            },
          };
        }),
      ],
      { mode: "answer" },
    );
    expect(result.status).toBe("completed");
    expectOneRefusal(events, /never retrieved: E99/);
  });

  it("JSON, research mode: a subtask answer citing evidence never retrieved", async () => {
    const { result, events } = await run(
      [
        marked(RESEARCH_MODE_LINES.subtasks, {
          json: {
            analysis: "one strand",
            subtasks: [{ title: "Architect", goal: "who designed station 3" }],
          },
        }),
        marked(RESEARCH_MODE_LINES.subtask, {
          json: { analysis: "search first", calls: [search("station 3 architect")] },
        }),
        marked(RESEARCH_MODE_LINES.subtask, {
          json: { analysis: "answer", subtaskAnswer: { text: "Mara Vell [E99]", citations: ["E99"] } },
        }),
        marked(RESEARCH_MODE_LINES.subtask, (call) => {
          const id = newest(call)[0] ?? "E1";
          return {
            json: { analysis: "answer", subtaskAnswer: { text: `Mara Vell [${id}]`, citations: [id] } },
          };
        }),
        marked(RESEARCH_MODE_LINES.report, (call) => {
          const id = newest(call)[0] ?? "E1";
          return { json: { report: `# Station 3\n\n## Architect\n\nMara Vell designed it [${id}].` } };
        }),
      ],
      {},
    );
    expect(result.status).toBe("completed");
    expectOneRefusal(events, /never retrieved: E99/);
  });

  for (const mode of ["answer", "research"] as const) {
    it(`tags, ${mode} mode: a reply that does not end with a closing tag`, async () => {
      const marker = mode === "answer" ? NATIVE_MARKER : NATIVE_RESEARCH_MARKER;
      const broken = `Search first.\n${toolCall("station 3 architect")}\nand then`;
      const { result, events } = await run(
        [
          marked(marker, `Plan.\n<plan>\n## Goal 1: the architect\n</plan>`),
          marked(marker, broken),
          marked(marker, `Search first.\n${toolCall("station 3 architect")}`),
          marked(marker, (call) => {
            const id = newest(call)[0] ?? "E1";
            const answer =
              mode === "answer"
                ? `Mara Vell [${id}]`
                : `# Station 3\n\n## Architect\n\nMara Vell designed it [${id}].`;
            return `Verified.\n<answer>${answer}</answer>`;
          }),
        ],
        { protocol: "native", mode },
      );
      expect(result.status).toBe("completed");
      expectOneRefusal(events, /must end with/);
      const refused = ofType(events, "llm-call").find((c) => c.formatErrors.length > 0)!;
      expect(refused.completion).toBe(broken);
    });
  }
});
