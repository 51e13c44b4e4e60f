import { describe, expect, it } from "vitest";
import type { DossierEvent, EventInput } from "../../core/events.ts";
import { computeProcessMetrics } from "./process-metrics.ts";

/** Stamps events with seq, a timestamp one second apart (the last at `endTs`) and a scope. */
function stamp(inputs: Array<EventInput & { scope?: string }>, endTs?: string): DossierEvent[] {
  return inputs.map((e, i) => ({
    ...e,
    runId: "run-1",
    seq: i + 1,
    ts: i === inputs.length - 1 && endTs ? endTs : new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  })) as DossierEvent[];
}

const llm = (
  callId: string,
  role: string,
  scope: string,
  usage: [number | null, number | null, number | null],
) => [
  { type: "llm-start", callId, role, model: "m", key: callId, attempt: 1, estimatedInputTokens: 1, scope },
  {
    type: "llm-end",
    callId,
    role,
    model: "m",
    key: callId,
    ok: true,
    replayed: false,
    inputTokens: usage[0],
    outputTokens: usage[1],
    costUsd: usage[2],
    latencyMs: 5,
    formatErrors: 0,
    retries: 0,
    scope,
  },
];
const start = (callId: string, tool: string, provider: string, args: unknown, scope: string) => ({
  type: "tool-start",
  callId,
  tool,
  provider,
  args,
  scope,
});
const end = (callId: string, tool: string, provider: string, ok: boolean, scope: string, cached = false) => ({
  type: "tool-end",
  callId,
  tool,
  provider,
  ok,
  cached,
  latencyMs: 3,
  scope,
  ...(ok ? {} : { error: { code: "PROVIDER_ERROR", message: "down" } }),
});

const outline = {
  sections: [
    {
      id: "1",
      title: "Market",
      plan: "",
      children: [
        { id: "1.1", title: "Sales", plan: "", children: [] },
        { id: "1.2", title: "Prices", plan: "", children: [] },
      ],
    },
    { id: "2", title: "Outlook", plan: "", children: [] },
  ],
};

function runEvents(reportStats: unknown): DossierEvent[] {
  const T1 = "search:T-1";
  const T2 = "search:T-2";
  return stamp(
    [
      { type: "run-start", query: "q", strategy: "minddr", options: {} },
      ...llm("L1", "planner", "planner", [100, 50, 0.001]),
      start("C1", "web_search", "tavily", { query: "EV sales 2024", topK: 5 }, T1),
      start("C2", "web_search", "tavily", { query: "ev  sales, 2024", topK: 5 }, T1),
      end("C1", "web_search", "tavily", true, T1),
      end("C2", "web_search", "tavily", false, T1),
      start("C3", "web_search", "brave", { query: "ev  sales, 2024", topK: 5 }, T1),
      end("C3", "web_search", "brave", true, T1),
      ...llm("L2", "searcher", T1, [200, 80, 0.002]),
      start("C4", "fetch_page", "http", { url: "https://x.test" }, T1),
      end("C4", "fetch_page", "http", true, T1, true),
      start("C5", "web_search", "tavily", { query: "battery prices" }, T2),
      end("C5", "web_search", "tavily", true, T2),
      ...llm("L3", "searcher", T2, [150, 60, null]),
      ...llm("L4", "writer", "section:1.1", [300, 500, 0.01]),
      {
        type: "format-error",
        callId: "L4",
        role: "writer",
        model: "m",
        attempt: 1,
        error: "bad",
        excerpt: "x",
      },
      { type: "outline-update", outline },
      { type: "section-written", sectionId: "1.1", title: "Sales", chars: 100, citations: 2 },
      { type: "section-written", sectionId: "1.2", title: "Prices", chars: 100, citations: 1 },
      { type: "report-ready", formats: ["md"], stats: reportStats },
      { type: "run-end", status: "completed", stopReason: "completed" },
    ] as Array<EventInput & { scope?: string }>,
    "2026-01-01T00:01:30.000Z",
  );
}

describe("computeProcessMetrics", () => {
  it("computes every metric of a hand-built run (hand-computed)", () => {
    const m = computeProcessMetrics(runEvents({ words: 10 }));
    expect(m.runId).toBe("run-1");
    expect(m.status).toBe("completed");
    // Model calls after new tool results in their scope: L2 (3 results in T-1), L3 (1 in T-2).
    expect(m.reasoning).toEqual({ reflectionTurns: 2, llmCalls: 4, llmFailures: 0, formatErrors: 1 });
    // C3 is C2's fallback: queries C1, C2, C5 → "ev sales 2024" twice, "battery prices" once.
    expect(m.search).toEqual({ queries: 3, distinct: 2, repetitionRate: 1 / 3 });
    expect(m.tools).toEqual({
      calls: 5,
      failures: 1,
      failureRate: 0.2,
      perTool: [
        { tool: "web_search", calls: 4, share: 0.8, failures: 1, failureRate: 0.25, cached: 0 },
        { tool: "fetch_page", calls: 1, share: 0.2, failures: 0, failureRate: 0, cached: 1 },
      ],
      // Steps: {C1, C2, C3} and {C4} in T-1 (split by L2), {C5} in T-2; requests exclude C3.
      requests: 4,
      steps: 3,
      callsPerStep: 4 / 3,
    });
    // No report headings: the leaves Sales, Prices, Outlook are compared with written sections.
    expect(m.outline).toEqual({
      sections: 4,
      titleMissRate: 1 / 3,
      missingTitles: ["Outlook"],
      hierarchyErrors: 0,
    });
    expect(m.report).toEqual({
      headingErrors: null,
      tables: null,
      validTableRate: null,
      temporalFlagged: null,
      temporalErrorRate: null,
      languageShare: null,
    });
    // L3's cost is unknown, so the total cost is unknown; tokens are all known.
    expect(m.usage).toEqual({
      inputTokens: 750,
      outputTokens: 690,
      totalTokens: 1440,
      costUsd: null,
      wallTimeMs: 90_000,
    });
    // The chain that decided the end: every second of the wall time is put to a cause.
    const t = m.timing!;
    expect(t.wallMs).toBe(90_000);
    const waits = Object.values(t.waits).reduce((a, b) => a + b, 0);
    expect(t.serviceMs + waits + t.retryMs + t.heldMs + t.idleMs).toBe(t.wallMs);
    expect(t.llmCalls).toBeGreaterThan(0);
  });

  it("reads the report-check figures of report-ready and compares every outline title with the headings", () => {
    const figures = {
      tables: { total: 4, valid: 3, validRate: 0.75 },
      headings: {
        count: 3,
        errors: 2,
        skippedLevels: 1,
        emptySections: 1,
        duplicateTitles: 0,
        titles: ["Market", "1.1 Sales", "prices"],
      },
      temporal: {
        currentDate: "2026-01-01",
        sentences: 40,
        predictive: 5,
        pastPredictive: 2,
        flagged: 1,
        errorRate: 0.2,
        verified: false,
      },
      language: { expected: "en", detected: "en", share: 0.98 },
    };
    const m = computeProcessMetrics(runEvents({ checks: figures }));
    expect(m.outline).toMatchObject({ titleMissRate: 1 / 4, missingTitles: ["Outlook"] });
    expect(m.report).toEqual({
      headingErrors: 2,
      tables: 4,
      validTableRate: 0.75,
      temporalFlagged: 1,
      temporalErrorRate: 0.2,
      languageShare: 0.98,
    });
  });

  it("also reads the report pipeline's ReportChecks shape (headings.problems as a count)", () => {
    const checks = {
      citations: { kept: 3, dropped: 0, byReason: {} },
      tables: { total: 2, valid: 1, repaired: 1 },
      headings: { problems: 3, details: ["x"] },
      temporal: { flagged: 2, details: ["a", "b"] },
      language: { expected: "en", detected: "en", share: 0.9 },
    };
    const m = computeProcessMetrics(runEvents({ checks }));
    expect(m.report).toEqual({
      headingErrors: 3,
      tables: 2,
      validTableRate: 0.5,
      temporalFlagged: 2,
      // Without a count of predictive statements the rate is unknown.
      temporalErrorRate: null,
      languageShare: 0.9,
    });
    // No heading titles stored: the outline leaves are compared with the written sections.
    expect(m.outline.titleMissRate).toBeCloseTo(1 / 3, 12);
  });

  it("reports unknowns as null, not 0, for a run that has not ended", () => {
    const m = computeProcessMetrics(
      stamp([
        { type: "run-start", query: "q", strategy: "graph", options: {} },
        ...llm("L1", "planner", "", [null, 5, null]),
      ] as EventInput[]),
    );
    expect(m.status).toBeNull();
    expect(m.timing).toBeNull();
    expect(m.search.repetitionRate).toBeNull();
    expect(m.tools).toMatchObject({ calls: 0, failureRate: null, callsPerStep: null, perTool: [] });
    expect(m.outline).toEqual({
      sections: null,
      titleMissRate: null,
      missingTitles: null,
      hierarchyErrors: null,
    });
    expect(m.usage).toEqual({
      inputTokens: null,
      outputTokens: 5,
      totalTokens: null,
      costUsd: null,
      wallTimeMs: null,
    });
  });

  it("counts a page crawl's own fetch and read as part of the crawl, not as a request or a step's end", () => {
    const T = "search:T-1";
    const m = computeProcessMetrics(
      stamp([
        { type: "run-start", query: "q", strategy: "smtl", options: {} },
        ...llm("L1", "searcher", T, [10, 5, null]),
        // One step: a search and a crawl at once; the crawl fetches the page and has it read.
        start("S1", "web_search", "searxng", { query: "battery cost" }, T),
        start("C1", "crawl_page", "crawl", { url: "https://e.org/a", goal: "g" }, T),
        start("F1", "fetch_page", "http", { url: "https://e.org/a" }, T),
        end("S1", "web_search", "searxng", true, T),
        end("F1", "fetch_page", "http", true, T),
        ...llm("R1", "reader", T, [20, 5, null]),
        // A second crawl of the same step, held by a queue until the first one's read began.
        start("C2", "crawl_page", "crawl", { url: "https://e.org/b", goal: "g" }, T),
        end("C1", "crawl_page", "crawl", true, T),
        start("F2", "fetch_page", "http", { url: "https://e.org/b" }, T),
        end("F2", "fetch_page", "http", true, T),
        ...llm("R2", "reader", T, [20, 5, null]),
        end("C2", "crawl_page", "crawl", true, T),
        // The next model call reads both results: one reflection turn.
        ...llm("L2", "searcher", T, [10, 5, null]),
        start("S2", "web_search", "searxng", { query: "battery adoption" }, T),
        end("S2", "web_search", "searxng", true, T),
        ...llm("L3", "searcher", T, [10, 5, null]),
        { type: "run-end", status: "completed", stopReason: "completed" },
      ] as EventInput[]),
    );
    expect(m.tools).toMatchObject({ calls: 4, requests: 4, steps: 2, callsPerStep: 2 });
    // L2 and L3 read results; the readers are part of their crawls.
    expect(m.reasoning.reflectionTurns).toBe(2);
    expect(m.tools.perTool.map((t) => t.tool).sort()).toEqual(["crawl_page", "web_search"]);
  });
});
