import { describe, expect, it } from "vitest";
import { isDossierError } from "../core/errors.ts";
import type { EventInput } from "../core/events.ts";
import { recordedRunFromEvents } from "./run-from-events.ts";
import { fixtureCall, fixtureEvents, fixtureRow } from "./test-fixtures.ts";

type Scoped = EventInput & { scope?: string };

const llmEnd = (callId: string, role: string, scope: string): Scoped => ({
  type: "llm-end",
  callId,
  role,
  model: "m",
  key: callId,
  ok: true,
  replayed: false,
  inputTokens: 1,
  outputTokens: 1,
  costUsd: null,
  latencyMs: 1,
  formatErrors: 0,
  retries: 0,
  scope,
});
const toolStart = (callId: string, scope: string): Scoped => ({
  type: "tool-start",
  callId,
  tool: "web_search",
  args: { query: callId },
  scope,
});
const toolEnd = (callId: string, ok: boolean, scope: string): Scoped => ({
  type: "tool-end",
  callId,
  tool: "web_search",
  ok,
  cached: false,
  latencyMs: 1,
  ...(ok ? {} : { error: { code: "RATE_LIMITED", message: "429" } }),
  scope,
});
const runStart: Scoped = { type: "run-start", query: "q", strategy: "smtl", options: {} };
const runEnd: Scoped = { type: "run-end", status: "completed", stopReason: "completed" };

const smtlLog = fixtureEvents([
  runStart,
  llmEnd("L1", "searcher", "smtl"),
  toolStart("T1", "smtl"),
  toolEnd("T1", true, "smtl"),
  toolStart("T2", "smtl"),
  {
    type: "source-add",
    source: {
      id: "S1",
      kind: "web",
      url: "https://a.example/x",
      title: "A",
      fetchedAt: "2026-01-01T00:00:00Z",
    },
  },
  {
    type: "evidence-add",
    evidence: {
      id: "E1",
      sourceId: "S1",
      text: "Turin hosts it.",
      retrievedBy: { tool: "web_search", callId: "T1" },
    },
  },
  { type: "evidence-add", evidence: { id: "bad" } },
  toolEnd("T2", false, "smtl"),
  llmEnd("L2", "reader", "smtl"),
  toolStart("T3", "smtl"),
  toolEnd("T3", true, "smtl"),
  toolStart("T4", "smtl"),
  {
    type: "answer-ready",
    answer: "Turin",
    verified: true,
    citations: [],
    evidence: ["E1"],
    steps: 1,
    toolCalls: 4,
    toolCallsPerStep: 4,
  },
  runEnd,
]);
const calls = [
  fixtureCall({ callId: "L1", step: 1, scope: "smtl" }),
  fixtureCall({ callId: "L2", step: 2, scope: "smtl", role: "reader" }),
];

describe("a recorded run from an event log", () => {
  it("keeps tool calls in order with their outcome, sources, evidence, answer and how the run ended", () => {
    const run = recordedRunFromEvents({
      row: fixtureRow(),
      events: [...smtlLog].reverse(),
      calls,
      report: "# R",
    });
    expect(run.runId).toBe("run-1");
    expect(run.strategy).toBe("smtl");
    expect(run.toolCalls.map((t) => [t.callId, t.ok, t.error?.code])).toEqual([
      ["T1", true, undefined],
      ["T2", false, "RATE_LIMITED"],
      ["T3", true, undefined],
      ["T4", false, "CANCELLED"],
    ]);
    expect(run.sources.map((s) => s.id)).toEqual(["S1"]);
    expect(run.evidence.map((e) => e.id)).toEqual(["E1"]); // the malformed one is skipped
    expect(run.answer).toBe("Turin");
    expect(run.report).toBe("# R");
    expect([run.status, run.stopReason]).toEqual(["completed", "completed"]);
    expect(run.calls).toEqual(calls);
  });

  it("gives a tool call the step of the last call of a policy role that ended before it in its scope", () => {
    const all = recordedRunFromEvents({ row: fixtureRow(), events: smtlLog, calls });
    expect(all.toolCalls.map((t) => t.step)).toEqual([1, 1, 2, 2]);
    const searcherOnly = recordedRunFromEvents({
      row: fixtureRow(),
      events: smtlLog,
      calls,
      policyRoles: ["searcher"],
    });
    expect(searcherOnly.toolCalls.map((t) => t.step)).toEqual([1, 1, 1, 1]);
  });

  it("keeps warp's actions with the tool calls they led to and the calls behind them, and drafts with their last score and call", () => {
    const log = fixtureEvents([
      { ...runStart, strategy: "warp" },
      llmEnd("L1", "planner", "planner"),
      llmEnd("L2", "planner", "planner"),
      {
        type: "trajectory-step",
        step: 1,
        action: "search",
        state: {},
        answer: { keywords: ["a"] },
        scope: "planner",
      },
      toolStart("T1", "planner"),
      toolEnd("T1", true, "planner"),
      {
        type: "trajectory-step",
        step: 2,
        action: "search",
        state: {},
        answer: { keywords: ["b"] },
        scope: "section:1",
      },
      toolStart("T2", "section:1"),
      llmEnd("L3", "reader", "section:1"),
      toolStart("T3", "planner"),
      llmEnd("L4", "writer", "section:1"),
      {
        type: "trajectory-step",
        step: 3,
        action: "write",
        state: {},
        answer: { content: "x" },
        scope: "section:1",
      },
      { type: "draft-snapshot", index: 0, step: 3, expansions: 0, markdown: "# D0", outline: {} },
      { type: "draft-scored", index: 0, scorer: "rubric", score: 0.2 },
      { type: "draft-scored", index: 0, scorer: "rubric", score: 0.4 },
      runEnd,
    ]);
    // L3 is the page reader's call inside the crawl T2: the engine's work, no action's call.
    const calls = [
      fixtureCall({ callId: "L1", step: 1, role: "planner", scope: "planner" }),
      fixtureCall({ callId: "L2", step: 1, role: "planner", scope: "planner" }),
      fixtureCall({ callId: "L3", step: 1, role: "reader", scope: "section:1", toolCallId: "T2" }),
      fixtureCall({ callId: "L4", step: 1, role: "writer", scope: "section:1" }),
    ];
    const run = recordedRunFromEvents({ row: fixtureRow(), events: log, calls });
    expect(run.trajectory.map((a) => [a.step, a.action, a.scope, a.toolCallIds, a.callIds])).toEqual([
      [1, "search", "planner", ["T1", "T3"], ["L1", "L2"]],
      [2, "search", "section:1", ["T2"], []],
      [3, "write", "section:1", [], ["L4"]],
    ]);
    expect(run.drafts).toEqual([
      { index: 0, step: 3, expansions: 0, markdown: "# D0", outline: {}, score: 0.4, lastCallId: "L4" },
    ]);
  });

  it("refuses an empty log, a log of two runs and a run that has not ended", () => {
    const refuse = (events: ReturnType<typeof fixtureEvents>) => {
      try {
        recordedRunFromEvents({ row: fixtureRow(), events });
        return null;
      } catch (error) {
        return isDossierError(error, "INPUT_INVALID") ? error.message : String(error);
      }
    };
    expect(refuse([])).toMatch(/no events/);
    const mixed = fixtureEvents([runStart, runEnd]);
    mixed[1]!.runId = "run-2";
    expect(refuse(mixed)).toMatch(/more than one run/);
    expect(refuse(fixtureEvents([runStart]))).toMatch(/has not ended/);
  });
});
