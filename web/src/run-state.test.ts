import { describe, expect, it } from "vitest";
import { applyEvent, emptyRunState, isFinished, progressOf, type RunEvent } from "./run-state.ts";

let seq = 0;
const ev = (
  type: string,
  fields: Record<string, unknown> = {},
  ts = "2026-01-01T00:00:00.000Z",
): RunEvent => ({
  runId: "r1",
  seq: ++seq,
  ts,
  type,
  ...fields,
});

const graph = (statuses: Record<string, string>) => ({
  nodes: Object.entries(statuses).map(([id, status], i) => ({
    id,
    type: "search",
    title: `Node ${id}`,
    goal: `Goal ${id}`,
    deps: i === 0 ? [] : ["T-1"],
    depth: i === 0 ? 1 : 2,
    status,
  })),
});

describe("run event reducer", () => {
  it("folds a graph run: plan, node states, evidence, usage, warnings and the end", () => {
    seq = 0;
    const s = emptyRunState();
    const events = [
      ev("run-start", {
        query: "Q?",
        strategy: "graph",
        options: { budget: { maxToolCalls: 10, maxTokens: 1000 } },
      }),
      ev("phase", { phase: "planning", detail: "DAG" }),
      ev("plan-update", {
        iteration: 1,
        graph: graph({ "T-1": "pending", "T-2": "pending", "T-3": "pending" }),
      }),
      ev("node-start", { nodeId: "T-1", nodeType: "search", title: "Node T-1" }),
      ev("tool-start", { callId: "c1", tool: "web_search", args: {} }),
      ev("source-add", { source: { id: "S1", kind: "web", title: "A page", url: "https://example.org/a" } }),
      ev("evidence-add", { evidence: { id: "E1", sourceId: "S1", text: "An excerpt.", retrievedBy: {} } }),
      ev("llm-end", { inputTokens: 100, outputTokens: 20, costUsd: 0.01 }),
      ev("node-end", { nodeId: "T-1", status: "done", summary: "Found it." }),
      ev("node-end", { nodeId: "T-2", status: "failed", error: { code: "X", message: "boom" } }),
      ev("gate-verdict", { nodeId: "T-2", verdict: "revise", round: 1, feedback: "more" }),
      ev("warning", { code: "W", message: "careful" }),
      ev("section-written", { sectionId: "1", title: "Intro", chars: 10, citations: 2 }),
    ];
    for (const e of events) expect(applyEvent(s, e)).toBe(true);
    expect(s.query).toBe("Q?");
    expect(s.strategy).toBe("graph");
    expect(s.limits).toEqual({ maxToolCalls: 10, maxTokens: 1000 });
    expect(s.phase).toBe("planning");
    expect(s.plan.map((n) => [n.id, n.status])).toEqual([
      ["T-1", "done"],
      ["T-2", "failed"],
      ["T-3", "pending"],
    ]);
    expect(s.plan[0]!.summary).toBe("Found it.");
    expect(s.plan[1]!.summary).toBe("boom");
    expect(s.usage).toEqual({ tokens: 120, costUsd: 0.01, toolCalls: 1, llmCalls: 1 });
    expect(s.sources.get("S1")!.url).toBe("https://example.org/a");
    expect(s.evidence.map((e) => e.id)).toEqual(["E1"]);
    expect(s.warnings).toHaveLength(1);
    expect(s.gates[0]!.verdict).toBe("revise");
    expect(s.sections[0]!.title).toBe("Intro");
    expect(progressOf(s)).toBeCloseTo(2 / 3);
    expect(isFinished(s)).toBe(false);
    // A later plan keeps node findings it no longer carries.
    applyEvent(
      s,
      ev("plan-update", { iteration: 2, graph: graph({ "T-1": "done", "T-2": "failed", "T-3": "pruned" }) }),
    );
    expect(s.plan[0]!.summary).toBe("Found it.");
    expect(progressOf(s)).toBe(0.95);
    applyEvent(s, ev("report-ready", { formats: ["md", "html"], stats: {} }));
    applyEvent(s, ev("run-end", { status: "completed", stopReason: "done" }, "2026-01-01T00:01:00.000Z"));
    expect(s.reportFormats).toEqual(["md", "html"]);
    expect(s.status).toBe("completed");
    expect(s.endedAt).toBe("2026-01-01T00:01:00.000Z");
    expect(progressOf(s)).toBe(1);
    expect(isFinished(s)).toBe(true);
  });

  it("ignores events it has seen, so a resumed stream neither loses nor duplicates any", () => {
    seq = 0;
    const all = [ev("run-start", { query: "Q", strategy: "offline", options: {} })];
    for (let i = 0; i < 5; i++)
      all.push(ev("evidence-add", { evidence: { id: `E${i + 1}`, sourceId: "S1", text: "t" } }));
    const s = emptyRunState();
    for (const e of all.slice(0, 4)) applyEvent(s, e);
    // The reconnect replays from an older point: the overlap is ignored.
    const applied = all.slice(2).map((e) => applyEvent(s, e));
    expect(applied).toEqual([false, false, true, true]);
    expect(s.count).toBe(6);
    expect(s.lastSeq).toBe(6);
    expect(s.evidence.map((e) => e.id)).toEqual(["E1", "E2", "E3", "E4", "E5"]);
    expect(s.timeline.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("shows a resumed run's replayed evidence, sections and calls once, and ends with the run's usage", () => {
    seq = 0;
    const s = emptyRunState();
    const first = [
      ev("run-start", { query: "Q", strategy: "minddr", options: {} }),
      ev("evidence-add", { evidence: { id: "E1", sourceId: "S1", text: "t" } }),
      ev("section-written", { sectionId: "1", title: "Intro", chars: 10, citations: 1 }),
      ev("llm-end", { inputTokens: 100, outputTokens: 10, replayed: false }),
    ];
    for (const e of first) applyEvent(s, e);
    applyEvent(s, ev("run-resume", { previousStatus: "interrupted", journaledSteps: 1, previousWallMs: 5 }));
    applyEvent(s, ev("llm-end", { inputTokens: 100, outputTokens: 10, replayed: true }));
    applyEvent(s, ev("evidence-add", { evidence: { id: "E1", sourceId: "S1", text: "t" } }));
    applyEvent(s, ev("evidence-add", { evidence: { id: "E2", sourceId: "S1", text: "u" } }));
    applyEvent(s, ev("section-written", { sectionId: "1", title: "Intro", chars: 12, citations: 2 }));
    expect(s.evidence.map((e) => e.id)).toEqual(["E1", "E2"]);
    expect(s.sections).toEqual([{ id: "1", title: "Intro", citations: 2, chars: 12 }]);
    expect(s.usage).toMatchObject({ tokens: 110, llmCalls: 1 });
    const usage = { inputTokens: 300, outputTokens: 30, costUsd: 0.5, llmCalls: 3, toolCalls: 4 };
    applyEvent(s, ev("run-end", { status: "completed", stopReason: "completed", usage }));
    expect(s.usage).toEqual({ tokens: 330, costUsd: 0.5, llmCalls: 3, toolCalls: 4 });
  });

  it("records other strategies' steps and a node that starts before any plan", () => {
    seq = 0;
    const s = emptyRunState();
    applyEvent(s, ev("step-end", { step: 1, toolCalls: 3, failed: 1 }));
    applyEvent(s, ev("trajectory-step", { step: 2, action: "expand", state: {}, answer: {} }));
    applyEvent(s, ev("plan-refine", { step: 3, forced: true, plan: {} }));
    applyEvent(s, ev("node-start", { nodeId: "T-9", nodeType: "llm", title: "Write" }));
    expect(s.steps.map((x) => x.label)).toEqual([
      "Step 1: 3 tool calls, 1 failed",
      "Step 2: expand",
      "Plan refined at step 3 (forced)",
    ]);
    expect(s.plan).toMatchObject([{ id: "T-9", status: "running", title: "Write" }]);
    applyEvent(s, ev("run-end", { status: "cancelled", stopReason: "cancelled by the user" }));
    expect(s.status).toBe("cancelled");
    applyEvent(s, ev("run-resume", { previousStatus: "cancelled", journaledSteps: 2, previousWallMs: 10 }));
    expect(s.status).toBe("running");
  });

  it("keeps the cost unknown once a call's cost is unknown (an unpriced model), never adding it as 0", () => {
    const s = emptyRunState();
    applyEvent(s, ev("llm-end", { inputTokens: 10, outputTokens: 2, costUsd: 0.01 }));
    expect(s.usage.costUsd).toBe(0.01);
    applyEvent(s, ev("llm-end", { inputTokens: 10, outputTokens: 2, costUsd: null }));
    applyEvent(s, ev("llm-end", { inputTokens: 10, outputTokens: 2, costUsd: 0.02 }));
    expect(s.usage).toMatchObject({ tokens: 36, costUsd: null, llmCalls: 3 });
  });

  it("folds a plan review: the plan shown, the pause, the answer and the run going on", () => {
    seq = 0;
    const s = emptyRunState();
    const plan = (titles: string[]) => ({ items: titles.map((title, i) => ({ id: `T-${i + 1}`, title })) });
    for (const e of [
      ev("run-start", { query: "Q?", strategy: "minddr" }),
      ev("plan-review", {
        plan: plan(["A", "B"]),
        deadline: "2026-01-02T00:00:00.000Z",
        timeoutMinutes: 1440,
      }),
      ev("run-end", { status: "awaiting-review", stopReason: "awaiting-review" }),
    ])
      applyEvent(s, e);
    expect(s.status).toBe("awaiting-review");
    expect(isFinished(s)).toBe(true);
    expect(progressOf(s)).toBeLessThan(0.1);
    expect(s.review).toEqual({
      requestedAt: "2026-01-01T00:00:00.000Z",
      deadline: "2026-01-02T00:00:00.000Z",
      proposed: ["A", "B"],
      answer: null,
    });
    applyEvent(
      s,
      ev(
        "plan-reviewed",
        {
          action: "edit",
          plan: plan(["A", "C"]),
          changes: { added: ["new-1"], removed: ["T-2"], reworded: [], reordered: false, retitled: false },
        },
        "2026-01-01T00:05:00.000Z",
      ),
    );
    applyEvent(s, ev("run-resume", { previousStatus: "interrupted" }));
    expect(s.status).toBe("running");
    expect(s.review?.answer).toEqual({
      action: "edit",
      items: ["A", "C"],
      changes: { added: ["new-1"], removed: ["T-2"], reworded: [], reordered: false },
      reason: "",
      at: "2026-01-01T00:05:00.000Z",
    });
  });
});
