import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_GRAPH_CALLS, ONE_CYCLE_GRAPH_CALLS } from "../../../test/research/graph-answers.ts";
import type { ScriptRole } from "../../../test/research/model-script.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { citedNumbers } from "../../core/citations.ts";
import type { Clock } from "../../core/clock.ts";
import { systemClock } from "../../core/clock.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const query = "How is topic adoption changing?";
type Result = Awaited<ReturnType<ResearchWorld["research"]>>;

/** Exploration may stop anywhere, so exploring roles get a budget; writing roles are exact. */
const exploring = Object.fromEntries(
  Object.entries(DEFAULT_GRAPH_CALLS)
    .filter(([r]) => r !== "section" && r !== "coherence")
    .map(([r, n]) => [r, [0, n] as const]),
) as Partial<Record<ScriptRole, readonly [number, number]>>;

function expectBudgetStop(result: Result, limit: string) {
  expect(result.record.status).toBe("completed");
  expect(result.record.stopReason).toBe(`budget:${limit}`);
  expect(result.events.find((e) => e.type === "decision" && e.decision === "stop")).toMatchObject({
    reason: `budget:${limit}`,
  });
  const report = result.outcome!.report;
  expect(report.references.length).toBeGreaterThan(0);
  expect(citedNumbers(report.body).every((n) => n >= 1 && n <= report.references.length)).toBe(true);
}

describe("graph under budgets", () => {
  it("stops exploring at the token share, never exceeding the token limit, and still writes", async () => {
    world = await startResearchWorld({ expectCalls: { ...exploring, section: [1, 4], coherence: [0, 1] } });
    // An uninterrupted run takes about 18,000 tokens: exploration's share of this limit is spent
    // in the loop.
    const maxTokens = 20_000;
    const result = await world.research({ query, budget: { maxTokens }, concurrency: 2 });
    expectBudgetStop(result, "tokens");
    const u = result.record.usage!;
    expect(u.inputTokens! + u.outputTokens!).toBeLessThanOrEqual(maxTokens);
    expect(world.script.counts.section).toBeGreaterThan(0);
  });

  // Five: the limit falls among the broad searches' concurrent tool calls; nine: among the first
  // cycle's concurrent search agents. The broad searches' evidence alone serves three of the four
  // sections (the scripted outline hints none to the fourth, and their listings are not findings).
  for (const [maxToolCalls, sections] of [
    [5, 3],
    [9, 4],
  ] as const) {
    it(`stops at the tool-call limit, never exceeding it (${maxToolCalls} calls)`, async () => {
      world = await startResearchWorld({ expectCalls: { ...exploring, section: sections, coherence: 1 } });
      const result = await world.research({ query, budget: { maxToolCalls } });
      expectBudgetStop(result, "toolCalls");
      expect(result.record.usage!.toolCalls).toBeLessThanOrEqual(maxToolCalls);
      expect(result.events.filter((e) => e.type === "tool-end" && e.ok).length).toBeLessThanOrEqual(
        maxToolCalls,
      );
    });
  }

  it("stops at the iteration limit: one cycle (INITPLAN's actions, no planner turn), then the report", async () => {
    world = await startResearchWorld({
      expectCalls: {
        ...ONE_CYCLE_GRAPH_CALLS,
      },
    });
    const result = await world.research({ query, budget: { maxIterations: 1 } });
    expectBudgetStop(result, "iterations");
    const phases = result.events.flatMap((e) =>
      e.type === "phase" ? [`${e.phase}: ${e.detail ?? ""}`] : [],
    );
    expect(phases.filter((p) => p.startsWith("planning"))).toEqual(["planning: initial plan"]);
    expect(phases.filter((p) => p.startsWith("researching"))).toEqual(["researching: iteration 1: 2 nodes"]);
  });

  it("keeps the writing share of the wall-time budget: exploration stops early, every section is written by the model", async () => {
    let offset = 0;
    const clock: Clock = { now: () => Date.UTC(2026, 10, 22) + offset, sleep: systemClock.sleep };
    world = await startResearchWorld({
      // Exploring calls take 10 s of run time each; writing calls take none.
      onCall: (role) => {
        if (role !== "section" && role !== "coherence") offset += 10_000;
      },
      expectCalls: { ...exploring, section: 4, coherence: 1 },
    });
    const maxWallMs = 200_000;
    const result = await world.research({ query, budget: { maxWallMs }, concurrency: 1 }, { clock });
    expectBudgetStop(result, "wallTime");
    expect(result.events.some((e) => e.type === "warning" && e.code === "SECTION_FALLBACK")).toBe(false);
    expect(offset).toBeLessThanOrEqual(maxWallMs);
  });

  it("reserves the cost of calls in flight, so concurrent calls never jointly exceed the cost limit", async () => {
    world = await startResearchWorld({
      latencyMs: 40,
      price: { inputPerMTok: 1000, outputPerMTok: 1000 },
      expectCalls: { ...exploring, section: [0, 4], coherence: [0, 1] },
    });
    const maxCostUsd = 10;
    const result = await world.research({ query, budget: { maxCostUsd }, concurrency: 8 });
    expect(result.record.status).toBe("completed");
    expect(result.record.stopReason).toBe("budget:cost");
    // Calls really were concurrent, and the sum of their costs stayed within the limit.
    expect(Math.max(...Object.values(world.script.maxInFlight))).toBeGreaterThan(1);
    expect(result.record.usage!.costUsd!).toBeLessThanOrEqual(maxCostUsd);
    expect(result.outcome!.report.markdown.length).toBeGreaterThan(100);
  });
});
