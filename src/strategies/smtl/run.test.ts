/**
 * Protocol tests of the smtl strategy, run through `Dossier.ask` with a strict scripted model
 * and a loopback search server: the plan precedes every tool call, a step's calls run at once,
 * the plan is refined every N steps, the context reset keeps only the task and the plan, the
 * step cap and the error budget end with an answer from evidence, and every cited passage was
 * retrieved in the run.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedCall, ScriptStep } from "../../../test/scripted/scripted-model.ts";
import {
  type CallKind,
  kindOf,
  on,
  readerReply,
  type SmtlKit,
  shownIds,
  startSmtlKit,
} from "../../../test/smtl/kit.ts";
import type { DossierEvent, EventOf } from "../../core/events.ts";
import { estimatePromptTokens } from "../../llm/token-estimate.ts";
import type { AskResult } from "../../runtime/ask-run.ts";
import { FINAL_REQUEST } from "./prompts.ts";

/** The text of a prompt message as the model received it. */
const contentOf = (m: { content: unknown }): string =>
  typeof m.content === "string"
    ? m.content
    : (m.content as { type: string; text?: string }[]).map((p) => p.text ?? "").join("");

let kit: SmtlKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const QUESTION = "Which architect designed the station that opened in 1903 on the northern line?";

const search = (query: string) => ({ tool: "web_search", query });
const goal = (n: number) => ({
  goal: `goal ${n}`,
  successCriterion: `criterion ${n}`,
  paths: [`path ${n}a`, `path ${n}b`],
});
const plan = (goals: number, calls: object[]) =>
  on("plan", {
    json: {
      thought: "two facts to establish",
      goals: Array.from({ length: goals }, (_, i) => goal(i + 1)),
      calls,
    },
  });
const step = (calls: object[]) => on("step", { json: { thought: "next", calls } });
/** A verified answer citing the first evidence shown; every goal verified by it. */
const answer = (goals: number) =>
  on("step", (call: ScriptedCall) => {
    const [first] = shownIds(call.prompt);
    return {
      json: {
        thought: "all goals verified",
        calls: [],
        answer: {
          text: `Mara Vell [${first}]`,
          citations: [first],
          verification: Array.from({ length: goals }, (_, i) => ({ goal: `G${i + 1}`, evidence: [first] })),
        },
      },
    };
  });
const refine = (analysis = "found") =>
  on("refine", (call: ScriptedCall) => ({
    json: {
      recap: "progress",
      goals: [{ id: "G1", status: "in-progress", analysis: `${analysis} [${shownIds(call.prompt)[0]}]` }],
      nextPaths: ["next path"],
    },
  }));
const final = on("final", (call: ScriptedCall) => {
  const ids = shownIds(call.prompt);
  return { json: { answer: "Mara Vell", citations: ids.slice(0, 1) } };
});

async function ask(steps: ScriptStep[], strategyOptions: Record<string, unknown> = {}, latency = 0) {
  kit = await startSmtlKit(steps, { searchLatencyMs: latency });
  const events = kit.events;
  const result = await kit.dossier.ask(QUESTION, { strategyOptions, onEvent: (e) => events.push(e) });
  return { result, events, kinds: kit.model.calls.map(kindOf) };
}

const ofType = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);

/** Every cited passage is evidence of this run, retrieved by a tool call that ended well in it. */
function expectCitedPassagesRetrieved(result: AskResult, events: DossierEvent[]) {
  const ended = new Map(ofType(events, "tool-end").map((e) => [e.callId, e]));
  const added = new Set(ofType(events, "evidence-add").map((e) => (e.evidence as { id: string }).id));
  expect(result.evidence.length).toBeGreaterThan(0);
  for (const passage of result.evidence) {
    expect(added.has(passage.id)).toBe(true);
    expect(ended.get(passage.retrievedBy.callId)?.ok).toBe(true);
    expect(result.research.report!.evidence.find((e) => e.id === passage.id)?.text).toBe(passage.text);
    expect(result.citations.map((c) => c.number)).toContain(passage.citation);
  }
  for (const n of [...result.answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])))
    expect(result.citations.map((c) => c.number)).toContain(n);
}

describe("smtl", () => {
  it("plans before any tool call, runs a step's calls at once and answers with retrieved evidence", async () => {
    const { result, events, kinds } = await ask(
      [
        plan(2, [search("opened 3"), search("architect 5"), search("line 7")]),
        step([{ tool: "crawl_page", url: "PAGE3", goal: "who designed it" }, search("flood 9")]),
        on("reader", readerReply),
        answer(2),
      ].map((s) => withPageUrl(s)),
      {},
      150,
    );
    expect(kinds).toEqual<(CallKind | "other")[]>(["plan", "step", "reader", "step"]);
    // The plan came before every tool call.
    const planEnd = events.find((e) => e.type === "llm-end")!;
    const framed = events.find((e) => e.type === "task-framed")!;
    const tools = ofType(events, "tool-start");
    expect(tools.length).toBeGreaterThan(0);
    for (const t of tools) expect(t.seq).toBeGreaterThan(Math.max(planEnd.seq, framed.seq));
    // The three searches of step 1 were in flight at the same time.
    expect(kit!.maxInFlight()).toBe(3);
    const firstStep = ofType(events, "step-end")[0]!;
    const starts = tools.filter((t) => t.tool === "web_search" && t.seq < firstStep.seq);
    const firstEnd = ofType(events, "tool-end").find((e) => e.tool === "web_search")!;
    expect(starts).toHaveLength(3);
    for (const s of starts) expect(s.seq).toBeLessThan(firstEnd.seq);
    expect(ofType(events, "step-end").map((e) => e.toolCalls)).toEqual([3, 2]);
    expect(result).toMatchObject({
      status: "completed",
      stopReason: "answered",
      verified: true,
      steps: 2,
      toolCalls: 5,
    });
    expect(result.toolCallsPerStep).toBe(2.5);
    expect(result.answer).toMatch(/^Mara Vell \[1\]$/);
    expect(result.citations[0]!.locator).toMatch(/\/page\/\d+$/);
    expectCitedPassagesRetrieved(result, events);
    expect(result.research.markdown).toContain("## Goals");
  });

  it("refines the plan every 5 steps and, at the step cap, answers from the evidence gathered", async () => {
    const steps: ScriptStep[] = [plan(1, [search("q 1"), search("q 2")])];
    for (let s = 2; s <= 12; s++) {
      steps.push(step([search(`q ${s * 2 + 1}`), search(`q ${s * 2 + 2}`)]));
      if (s === 5 || s === 10) steps.push(refine());
    }
    steps.push(final);
    const { result, events, kinds } = await ask(steps, { maxSteps: 12 });
    const expected: CallKind[] = ["plan", "step", "step", "step", "step", "refine"];
    expected.push("step", "step", "step", "step", "step", "refine", "step", "step", "final");
    expect(kinds).toEqual(expected);
    expect(ofType(events, "plan-refine").map((e) => [e.step, e.forced])).toEqual([
      [5, false],
      [10, false],
    ]);
    expect(result).toMatchObject({ stopReason: "step-cap", verified: false, steps: 12, toolCalls: 24 });
    expect(result.toolCallsPerStep).toBe(2);
    expect(result.answer).toMatch(/^Mara Vell \[1\]$/);
    expectCitedPassagesRetrieved(result, events);
    // The refined plan reaches the next step.
    const afterRefine = kit!.model.calls[6]!;
    expect(afterRefine.prompt).toContain("G1 [in-progress] goal 1");
    expect(afterRefine.prompt).toContain("next sub-paths: next path");
  });

  it("at the context budget refines, then drops older turns and keeps the task and the plan", async () => {
    const { result, events, kinds } = await ask(
      [plan(1, [search("q 1"), search("q 4"), search("q 7")]), refine("KEPT-ANALYSIS"), answer(1)],
      { contextTokens: 1000 },
    );
    expect(kinds).toEqual(["plan", "refine", "step"]);
    const [forced] = ofType(events, "plan-refine");
    const [reset] = ofType(events, "context-reset");
    expect(forced).toMatchObject({ step: 1, forced: true });
    expect(reset!.seq).toBeGreaterThan(forced!.seq);
    expect(reset).toMatchObject({ step: 1, droppedTurns: 4 });
    expect(reset!.tokensAfter).toBeLessThan(reset!.tokensBefore);
    const [, refineCall, next] = kit!.model.calls;
    expect(refineCall!.prompt).toContain("Results of step 1");
    // After the reset: system + one user message holding the task and the refreshed plan.
    expect(next!.options.prompt.map((m) => m.role)).toEqual(["system", "user"]);
    expect(next!.prompt).not.toContain("Results of step 1");
    expect(next!.prompt).toContain(QUESTION);
    expect(next!.prompt).toMatch(/<plan>[\s\S]*KEPT-ANALYSIS \[E\d+\][\s\S]*<\/plan>/);
    expect(result).toMatchObject({ stopReason: "answered", verified: true });
    expectCitedPassagesRetrieved(result, events);
  });

  it("counts malformed actions, rejects unverified answers and ends at the error budget with an answer from evidence", async () => {
    const tooMany = Array.from({ length: 11 }, (_, i) => search(`q ${i + 20}`));
    const { result, events, kinds } = await ask(
      [
        plan(6, [search("q 1")]), // six goals: rejected, and no tool runs before a valid plan
        plan(2, [search("q 1")]),
        on("step", "I think I should search more."), // not JSON
        step(tooMany), // over the hard limit of 10 calls
        on("step", (call: ScriptedCall) => ({
          json: {
            thought: "done",
            answer: {
              text: "Mara Vell",
              citations: [shownIds(call.prompt)[0]],
              verification: [{ goal: "G1", evidence: [shownIds(call.prompt)[0]] }],
            },
          },
        })), // G2 is not verified
        final,
      ],
      { errorBudget: 4 },
    );
    expect(kinds).toEqual(["plan", "plan", "step", "step", "step", "final"]);
    const warnings = ofType(events, "warning").filter((w) => w.code === "MALFORMED_ACTION");
    expect(warnings).toHaveLength(4);
    expect(warnings[3]!.message).toMatch(/G2 are not verified/);
    const firstTool = ofType(events, "tool-start")[0]!;
    const secondPlanEnd = ofType(events, "llm-end")[1]!;
    expect(firstTool.seq).toBeGreaterThan(secondPlanEnd.seq);
    expect(kit!.queries).toEqual(["q 1"]);
    expect(result).toMatchObject({ stopReason: "error-budget", verified: false, steps: 1, toolCalls: 1 });
    expect(result.answer).toMatch(/^Mara Vell \[1\]$/);
    expectCitedPassagesRetrieved(result, events);
    // The rejection reached the model with the next call.
    expect(kit!.model.calls[4]!.lastUser).toMatch(/Your last reply was rejected: [\s\S]*(10|Too big)/i);
  });

  it("refuses an answer that cites a passage never retrieved", async () => {
    const { result, events } = await ask(
      [
        plan(1, [search("q 1")]),
        on("step", {
          json: {
            thought: "done",
            answer: {
              text: "Mara Vell [E99]",
              citations: ["E99"],
              verification: [{ goal: "G1", evidence: ["E99"] }],
            },
          },
        }),
        answer(1),
      ],
      {},
    );
    expect(ofType(events, "warning").find((w) => w.code === "MALFORMED_ACTION")?.message).toMatch(
      /never retrieved: E99/,
    );
    expect(result).toMatchObject({ stopReason: "answered", verified: true });
    expectCitedPassagesRetrieved(result, events);
  });

  it("runs a repeated call only once and counts a step of repeats as malformed", async () => {
    const { result, events, kinds } = await ask([
      plan(1, [search("q 1"), search("q 4")]),
      step([search("q 1"), search("q 7"), search("q 7")]),
      step([search("Q 4")]),
      answer(1),
    ]);
    expect(kinds).toEqual(["plan", "step", "step", "step"]);
    expect(kit!.queries).toEqual(expect.arrayContaining(["q 1", "q 4", "q 7"]));
    expect(kit!.queries).toHaveLength(3);
    expect(ofType(events, "step-end").map((e) => e.toolCalls)).toEqual([2, 1]);
    expect(kit!.model.calls[2]!.prompt).toContain('web_search "q 1" → not run again: it was made in step 1');
    expect(ofType(events, "warning").find((w) => w.code === "MALFORMED_ACTION")?.message).toMatch(
      /every call repeats one already made/,
    );
    expect(result).toMatchObject({ stopReason: "answered", steps: 2, toolCalls: 3 });
  });

  it("stops at the tool-call budget, never exceeding it, and answers from the evidence gathered", async () => {
    kit = await startSmtlKit([
      plan(1, [search("q 1"), search("q 4"), search("q 7")]),
      step([search("q 2"), search("q 5"), search("q 8")]),
      final,
    ]);
    const events = kit.events;
    const result = await kit.dossier.ask(QUESTION, {
      budget: { maxToolCalls: 4 },
      onEvent: (e) => events.push(e),
    });
    expect(kit.model.calls.map(kindOf)).toEqual(["plan", "step", "final"]);
    expect(kit.queries).toHaveLength(4);
    expect(result.research.record.usage?.toolCalls).toBe(4);
    expect(result).toMatchObject({ stopReason: "budget:toolCalls", steps: 2, toolCalls: 4, verified: false });
    expect(result.answer).toMatch(/^Mara Vell \[1\]$/);
    expectCitedPassagesRetrieved(result, events);
  });

  it("searches the user's documents with local_search when documents are given", async () => {
    kit = await startSmtlKit([
      on("plan", (call: ScriptedCall) => {
        expect(call.system).toContain("- local_search {query}");
        expect(call.system).not.toContain("- web_search {query}");
        return {
          json: {
            thought: "search the notes",
            goals: [goal(1)],
            calls: [
              { tool: "local_search", query: "station architect" },
              { tool: "local_search", query: "northern line opening" },
            ],
          },
        };
      }),
      answer(1),
    ]);
    const docs = join(kit.home, "notes");
    mkdirSync(docs);
    writeFileSync(
      join(docs, "stations.md"),
      "# Stations\n\n## Northern line\n\nThe station on the northern line opened in 1903 and its architect was Mara Vell.\n",
    );
    const events = kit.events;
    const result = await kit.dossier.ask(QUESTION, {
      docs,
      sources: "local",
      onEvent: (e) => events.push(e),
    });
    expect(result).toMatchObject({ stopReason: "answered", steps: 1, toolCalls: 2, toolCallsPerStep: 2 });
    expect(kit.queries).toEqual([]);
    expect(result.citations[0]!.locator).toMatch(/stations\.md#/);
    expectCitedPassagesRetrieved(result, events);
  });
});

describe("smtl: the trajectory", () => {
  it("is replayable: every action with its reply, the observation ids it saw and the tool calls after it", async () => {
    const { result, events } = await ask(
      [
        plan(2, [search("opened 3"), search("architect 5")]),
        step([{ tool: "crawl_page", url: "PAGE3", goal: "who designed it" }, search("flood 9")]),
        on("reader", readerReply),
        answer(2),
      ].map((s) => withPageUrl(s)),
    );
    const steps = ofType(events, "trajectory-step");
    expect(steps.map((s) => s.action)).toEqual(["plan", "search", "answer"]);
    expect((steps[0]!.answer as { goals: unknown[]; calls: unknown[] }).calls).toHaveLength(2);
    expect((steps[1]!.answer as { thought: string }).thought).toBe("next");
    const between = <T extends DossierEvent["type"]>(type: T, a: number, b: number) =>
      ofType(events, type).filter((e) => e.seq > steps[a]!.seq && e.seq < (steps[b]?.seq ?? Infinity));
    // Each action's tool calls follow it, in its scope, before the next action.
    expect(between("tool-start", 0, 1).map((t) => t.tool)).toEqual(["web_search", "web_search"]);
    expect(
      between("tool-start", 1, 2)
        .map((t) => t.tool)
        .sort(),
    ).toEqual(["crawl_page", "fetch_page", "web_search"]); // crawl_page fetches its page through fetch_page
    for (const t of ofType(events, "tool-start")) expect(t.scope).toBe(steps[0]!.scope);
    // Each action saw the evidence the previous action's calls returned.
    const ids = (a: number, b: number) =>
      between("evidence-add", a, b).map((e) => (e.evidence as { id: string }).id);
    expect((steps[0]!.state as { observations: string[] }).observations).toEqual([]);
    expect([...(steps[1]!.state as { observations: string[] }).observations].sort()).toEqual(
      ids(0, 1).sort(),
    );
    expect([...(steps[2]!.state as { observations: string[] }).observations].sort()).toEqual(
      ids(1, 2).sort(),
    );
    expect(result).toMatchObject({ stopReason: "answered", verified: true });
  });
});

describe("smtl: windows sized from the model's context", () => {
  /** Four steps of two searches each (each adds about 440 estimated tokens to the conversation). */
  const fourSteps = () => [
    plan(1, [search("q 1"), search("q 2")]),
    step([search("q 3"), search("q 4")]),
    step([search("q 5"), search("q 6")]),
    step([search("q 7"), search("q 8")]),
  ];

  it("the reset comes when the conversation passes the model's window less the reply's room, not before; the page window is the seed's share at 60/40", async () => {
    const window = 4000;
    // A window this small cannot spare the seed's reply reserve: half of it is kept for the conversation.
    const budget = window / 2;
    const { result, events } = await ask(
      [
        ...fourSteps().slice(0, 3),
        on("refine", (call: ScriptedCall) => ({
          json: {
            recap: "progress",
            goals: [{ id: "G1", status: "in-progress", analysis: `found [${shownIds(call.prompt)[0]}]` }],
            nextPaths: ["read the page"],
          },
        })),
        step([{ tool: "crawl_page", url: "PAGE3", goal: "who designed it" }]),
        on("reader", readerReply),
        answer(1),
      ].map((s) => withPageUrl(s)),
      { contextWindow: window },
    );
    const resets = ofType(events, "context-reset");
    expect(resets).toHaveLength(1);
    const [reset] = resets;
    // Reset at the first step whose conversation passed the window: the step before fitted.
    expect(reset!.tokensBefore).toBeGreaterThan(budget);
    expect(reset!.tokensAfter).toBeLessThan(budget);
    const sizes = kit!.model.calls
      .filter(
        (c) => kindOf(c) === "step" && c.index < kit!.model.calls.findIndex((x) => kindOf(x) === "refine"),
      )
      .map((c) => estimatePromptTokens([c.system, ...c.options.prompt.slice(1).map(contentOf)]));
    expect(sizes.length).toBeGreaterThan(0);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(budget);
    expect(ofType(events, "plan-refine")).toMatchObject([{ forced: true }]);
    // The crawl showed the reader at most the seed's share of the window, 60 % head, 40 % tail.
    const crawl = ofType(events, "tool-start").find((e) => e.tool === "crawl_page")!;
    expect(crawl.args).toMatchObject({
      maxPageTokens: Math.floor((window * 115_904) / 131_072),
      headShare: 0.6,
    });
    expect(result).toMatchObject({ stopReason: "answered", verified: true });
    expect(result.research.report).not.toBeNull();
  });

  it("a model whose window is unknown gets the seed's 128K: the same steps never reset", async () => {
    const { result, events } = await ask([...fourSteps(), answer(1)]);
    expect(ofType(events, "context-reset")).toEqual([]);
    expect(ofType(events, "task-framed")[0]!.spec).toMatchObject({
      contextTokens: 112_640,
      pageTokens: 115_904,
    });
    expect(result).toMatchObject({ stopReason: "answered", steps: 4 });
  });
});

describe("smtl: the answer when the search ends unanswered", () => {
  it("is written over the conversation (the agent's turns and tool results) and the evidence gathered", async () => {
    const { result, kinds } = await ask([plan(1, [search("q 1")]), step([search("q 4")]), final], {
      maxSteps: 2,
    });
    expect(kinds).toEqual(["plan", "step", "final"]);
    const call = kit!.model.calls.at(-1)!;
    const roles = call.options.prompt.map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "user", "assistant", "user"]);
    expect(call.prompt).toContain("Results of step 1");
    expect(call.prompt).toContain("two facts to establish");
    expect(call.lastUser).toContain(FINAL_REQUEST);
    expect(call.lastUser).toMatch(/<evidence>\n\[E\d+\]/);
    expect(result).toMatchObject({ stopReason: "step-cap", verified: false });
    expect(result.answer).toMatch(/^Mara Vell \[1\]$/);
  });
});

describe("smtl: no research, no completed run", () => {
  it("plans that never hold a valid first step spend the error budget before any tool call: failed with NO_RESEARCH, no answer", async () => {
    const { result, events, kinds } = await ask(
      [plan(6, [search("q 1")]), on("plan", "I would rather answer from memory.")],
      { errorBudget: 2 },
    );
    // The plan requires a first tool call, so the agent cannot finish without searching; the
    // error budget ends the loop before any call, and the run fails instead of answering.
    expect(kinds).toEqual(["plan", "plan"]);
    expect(kit!.queries).toEqual([]);
    expect(result.status).toBe("failed");
    expect(result.research.error?.code).toBe("NO_RESEARCH");
    expect(result.stopReason).toBe("error: NO_RESEARCH");
    expect(result.answer).toBe("");
    expect(result.research.report).toBeNull();
    expect(ofType(events, "answer-ready")).toEqual([]);
  });
});

/** Replaces the placeholder URL `PAGE3` with the kit's page 3 once the kit is known. */
function withPageUrl(s: ScriptStep): ScriptStep {
  if (typeof s !== "object" || s === null || !("reply" in s) || typeof s.reply === "function") return s;
  const text = JSON.stringify(s.reply);
  if (!text.includes("PAGE3")) return s;
  return { ...s, reply: () => JSON.parse(text.replace("PAGE3", `${kit!.web.origin}/page/3`)) };
}
