import { describe, expect, it } from "vitest";
import type { DossierEvent } from "../../core/events.ts";
import { criticalChain } from "./critical-chain.ts";

/** Events at the given milliseconds after a fixed start, numbered in order. */
function log(items: Array<[number, Record<string, unknown>]>): DossierEvent[] {
  return items.map(([ms, e], i) => ({
    runId: "r",
    seq: i + 1,
    ts: new Date(Date.UTC(2026, 0, 1) + ms).toISOString(),
    ...e,
  })) as unknown as DossierEvent[];
}

const llmStart = (callId: string, role: string, scope?: string) => ({
  type: "llm-start",
  callId,
  role,
  model: "openai:m",
  key: callId,
  attempt: 1,
  estimatedInputTokens: 1,
  ...(scope ? { scope } : {}),
});
const llmEnd = (callId: string, role: string, scope?: string, extra: Record<string, unknown> = {}) => ({
  type: "llm-end",
  callId,
  role,
  model: "openai:m",
  key: callId,
  ok: true,
  replayed: false,
  inputTokens: 1,
  outputTokens: 1,
  costUsd: null,
  latencyMs: 0,
  formatErrors: 0,
  retries: 0,
  ...(scope ? { scope } : {}),
  ...extra,
});
const toolStart = (callId: string, tool: string, provider: string, scope?: string) => ({
  type: "tool-start",
  callId,
  tool,
  provider,
  args: {},
  ...(scope ? { scope } : {}),
});
const toolEnd = (callId: string, tool: string, provider: string, scope?: string, queueMs?: number) => ({
  type: "tool-end",
  callId,
  tool,
  provider,
  ok: true,
  cached: false,
  latencyMs: 0,
  ...(queueMs ? { queueMs } : {}),
  ...(scope ? { scope } : {}),
});
const phase = (name: string) => ({ type: "phase", phase: name });

/** The parts of a breakdown added up: they make the wall time. */
const parts = (b: NonNullable<ReturnType<typeof criticalChain>>) =>
  b.serviceMs + Object.values(b.waits).reduce((s, x) => s + x, 0) + b.retryMs + b.heldMs + b.idleMs;

describe("criticalChain", () => {
  it("follows the dependency answered last and puts every millisecond of the wall time to a cause", () => {
    const T1 = "search:T-1";
    const T2 = "search:T-2";
    const b = criticalChain(
      log([
        [0, { type: "run-start", query: "q", strategy: "minddr", options: {} }],
        [0, phase("planning")],
        [20, llmStart("L1", "planner", "planner")],
        [520, llmEnd("L1", "planner", "planner")],
        [530, phase("searching")],
        // Two units start after the main line spoke; T-1's search waits 300 ms for a slot.
        [540, toolStart("C1", "web_search", "searxng", T1)],
        [540, toolStart("C2", "web_search", "searxng", T2)],
        [1040, toolEnd("C2", "web_search", "searxng", T2)],
        [1340, toolEnd("C1", "web_search", "searxng", T1, 300)],
        // T-2's next call comes 400 ms late, while T-1's search is in flight: held.
        [1440, llmStart("L2", "searcher", T2)],
        [1940, llmEnd("L2", "searcher", T2)],
        [2000, phase("writing")],
        // The writer waits for both units; issued 160 ms after the last answer, none in flight.
        [2100, llmStart("L3", "writer")],
        [2600, llmEnd("L3", "writer")],
        [2650, { type: "run-end", status: "completed", stopReason: "completed" }],
      ]),
    )!;
    expect(b.links.map((l) => l.call.callId)).toEqual(["L1", "C2", "L2", "L3"]);
    expect(b).toMatchObject({ wallMs: 2650, calls: 4, llmCalls: 3, waits: {}, retryMs: 0 });
    // Gaps: 20 before the planner and 20 before the searches (idle), 400 before L2 (held behind
    // C1 until 1340, then idle), 160 before the writer and 50 after it (idle).
    expect(b.heldMs).toBe(300);
    expect(b.idleMs).toBe(20 + 20 + 100 + 160 + 50);
    expect(b.serviceMs).toBe(500 + 500 + 500 + 500);
    expect(parts(b)).toBe(b.wallMs);
    expect(b.idleSteps).toEqual([
      { step: "writing: searcher → writer", ms: 160, gaps: 1 },
      { step: "searching: web_search → searcher", ms: 100, gaps: 1 },
      { step: "writing: writer → end", ms: 50, gaps: 1 },
      { step: "planning: start → planner", ms: 20, gaps: 1 },
      { step: "searching: planner → web_search", ms: 20, gaps: 1 },
    ]);
  });

  it("counts a limiter wait, the fetch's wait inside a crawl, and retries on the chain", () => {
    const T = "search:T-1";
    const b = criticalChain(
      log([
        [0, { type: "run-start", query: "q", strategy: "smtl", options: {} }],
        [0, toolStart("C1", "crawl_page", "reader", T)],
        [0, toolStart("F1", "fetch_page", "http", T)],
        [250, toolEnd("F1", "fetch_page", "http", T, 150)],
        [250, llmStart("R1", "reader", T)],
        [750, llmEnd("R1", "reader", T)],
        [800, toolEnd("C1", "crawl_page", "reader", T, 40)],
        [800, llmStart("L1", "searcher", T)],
        [
          900,
          {
            type: "llm-retry",
            callId: "L1",
            role: "searcher",
            model: "openai:m",
            attempt: 1,
            delayMs: 100,
            error: { code: "RATE_LIMITED", message: "429" },
            scope: T,
          },
        ],
        [1500, llmEnd("L1", "searcher", T, { retries: 1, queueMs: 60 })],
        [1500, { type: "run-end", status: "completed", stopReason: "completed" }],
      ]),
    )!;
    // The crawl's fetch and read are part of it: two calls on the chain.
    expect(b.links.map((l) => l.call.callId)).toEqual(["C1", "L1"]);
    expect(b.waits).toEqual({ "crawl_page/reader": 40, "fetch_page/http": 150, "model:openai": 60 });
    // The failed attempt and its backoff: from the call's start to 900 + 100.
    expect(b.retryMs).toBe(200);
    expect(b.serviceMs).toBe(800 - 190 + (700 - 60 - 200));
    expect(parts(b)).toBe(b.wallMs);
  });

  it("is null while the run has not ended", () => {
    expect(
      criticalChain(log([[0, { type: "run-start", query: "q", strategy: "graph", options: {} }]])),
    ).toBeNull();
  });
});
