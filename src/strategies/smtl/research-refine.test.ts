/**
 * smtl's deep-research mode in the JSON protocol refines its subtasks as the seed's agent does
 * (SMTL §3 and §6.1): every `refineEvery` tool steps, and once more before each context reset,
 * with the pending subtasks replaced by the refined list and the answered ones kept.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedCall, ScriptReply, ScriptStep } from "../../../test/scripted/scripted-model.ts";
import { type SmtlKit, shownIds, startSmtlKit } from "../../../test/smtl/kit.ts";
import type { DossierEvent, EventOf } from "../../core/events.ts";
import { RESEARCH_REFINE_REQUEST } from "./json-research-refine.ts";
import { RESEARCH_MODE_LINES } from "./research-prompts.ts";

let kit: SmtlKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const QUESTION = "How were the stations of the northern line built and rebuilt?";
type Kind = keyof typeof RESEARCH_MODE_LINES;
const on = (kind: Kind, reply: ScriptReply | ((call: ScriptedCall) => ScriptReply)): ScriptStep => ({
  match: (prompt: string) => prompt.includes(RESEARCH_MODE_LINES[kind]),
  reply,
});
const kindOf = (call: ScriptedCall) =>
  (Object.keys(RESEARCH_MODE_LINES) as Kind[]).find((k) => call.system.includes(RESEARCH_MODE_LINES[k])) ??
  "other";
const ofType = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);
const search = (query: string) => ({ tool: "web_search", query });
const subtasks = on("subtasks", {
  json: { analysis: "one strand", subtasks: [{ title: "Openings", goal: "when each station opened" }] },
});
const searchStep = (n: number) =>
  on("subtask", { json: { analysis: `search ${n}`, calls: [search(`station ${n} opening`)] } });
const refine = (title: string) =>
  on("refine", (call) => ({
    json: {
      status: `openings found [${shownIds(call.prompt)[0]}]`,
      pending: [
        { title, goal: "when each station opened, confirmed" },
        { title: `${title} (architects)`, goal: "who designed the stations" },
      ],
    },
  }));
const answer = (key: string) =>
  on("subtask", (call) => {
    const [id] = shownIds(call.prompt);
    return { json: { analysis: "answerable", subtaskAnswer: { text: `${key} [${id}].`, citations: [id!] } } };
  });
const report = on("report", (call) => ({
  json: { report: `## Openings\n\nThe first station opened in 1901 [${shownIds(call.lastUser)[0]}].` },
}));

describe("smtl deep research (json): plan refinement", () => {
  it("refines after tool steps 5 and 10; the refined pending subtasks replace the old ones, answered ones stay", async () => {
    kit = await startSmtlKit([
      subtasks,
      ...[1, 2, 3, 4, 5].map(searchStep),
      refine("Openings, refined"),
      ...[6, 7, 8, 9, 10].map(searchStep),
      refine("Openings, refined again"),
      answer("Station 1 opened in 1901"),
      answer("Mara Vell designed them"),
      report,
    ]);
    const events: DossierEvent[] = [];
    const result = await kit.dossier.research(QUESTION, { strategy: "smtl", onEvent: (e) => events.push(e) })
      .done;
    expect(result.status).toBe("completed");
    const kinds = kit.model.calls.map(kindOf);
    expect(kinds.indexOf("refine")).toBe(6);
    expect(kinds.lastIndexOf("refine")).toBe(12);
    expect(ofType(events, "plan-refine").map((e) => [e.step, e.forced])).toEqual([
      [5, false],
      [10, false],
    ]);
    // The refinement was asked after the fifth step's results.
    const first = kit.model.calls[6]!;
    expect(first.lastUser).toContain(RESEARCH_REFINE_REQUEST);
    // The next step works on the refined subtask; the second refinement kept its list's shape.
    expect(kit.model.calls[7]!.prompt).toMatch(/S1 \[current\] Openings, refined: /);
    expect(kit.model.calls[13]!.prompt).toMatch(/S1 \[current\] Openings, refined again: [\s\S]*S2 \[open\]/);
    const framed = ofType(events, "plan-refine").at(-1)!.plan as { subtasks: { title: string }[] };
    expect(framed.subtasks.map((t) => t.title)).toEqual([
      "Openings, refined again",
      "Openings, refined again (architects)",
    ]);
    expect(result.report!.checks.citations.byReason).toEqual({});
  });

  it("at the context budget refines once (forced), then resets to the task and the refined subtasks", async () => {
    kit = await startSmtlKit([
      subtasks,
      on("subtask", {
        json: {
          analysis: "three searches",
          calls: [search("station 1"), search("station 4"), search("station 7")],
        },
      }),
      refine("Openings after the reset"),
      answer("Station 1 opened in 1901"),
      answer("Mara Vell designed them"),
      report,
    ]);
    const events: DossierEvent[] = [];
    const result = await kit.dossier.research(QUESTION, {
      strategy: "smtl",
      strategyOptions: { contextTokens: 1500 },
      onEvent: (e) => events.push(e),
    }).done;
    expect(result.status).toBe("completed");
    expect(kit.model.calls.map(kindOf)).toEqual([
      "subtasks",
      "subtask",
      "refine",
      "subtask",
      "subtask",
      "report",
    ]);
    const [forced] = ofType(events, "plan-refine");
    const [reset] = ofType(events, "context-reset");
    expect(forced).toMatchObject({ step: 1, forced: true });
    expect(reset!.seq).toBeGreaterThan(forced!.seq);
    const next = kit.model.calls[3]!;
    expect(next.options.prompt.map((m) => m.role)).toEqual(["system", "user"]);
    expect(next.prompt).toContain(QUESTION);
    expect(next.prompt).toMatch(/S1 \[current\] Openings after the reset/);
  });
});
