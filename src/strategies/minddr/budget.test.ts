import { afterEach, describe, expect, it } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import type { Clock } from "../../core/clock.ts";
import { systemClock } from "../../core/clock.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const query = "How is topic adoption changing?";

/** Writing calls a budget may cut short: at most one outline, four sections and one edit. */
const WRITING = { outline: [0, 1], section: [0, 4], coherence: [0, 1] } as const;

function expectReport(result: Awaited<ReturnType<ResearchWorld["research"]>>, stopReason: string) {
  expect(result.record.status).toBe("completed");
  expect(result.record.stopReason).toBe(stopReason);
  expect(result.outcome!.paths).toHaveLength(1);
  expect(result.outcome!.report.markdown.length).toBeGreaterThan(50);
  const decisions = result.events.filter((e) => e.type === "decision");
  expect(decisions.at(-1)).toMatchObject({ decision: "stop", reason: `exploration stopped: ${stopReason}` });
}

describe("minddr under budgets", () => {
  it("stops exploring at the tool-call limit and still writes the report", async () => {
    // One or two agents get their searches and page reads; the others find the tool budget spent.
    world = await startResearchWorld({
      subtasks: 5,
      expectCalls: { ...WRITING, planner: 1, "search-step": [1, 5], reader: [1, 2], "sub-report": [1, 2] },
    });
    const result = await world.research({
      query,
      strategy: "minddr",
      budget: { maxToolCalls: 4 },
      concurrency: 1,
    });
    expectReport(result, "budget:toolCalls");
    expect(result.record.usage!.toolCalls).toBeLessThanOrEqual(4);
    expect(result.outcome!.report.references.length).toBeGreaterThan(0);
  });

  it("stops exploring at the token limit, never exceeding it", async () => {
    world = await startResearchWorld({
      subtasks: 5,
      expectCalls: { ...WRITING, planner: 1, "search-step": [1, 10], reader: [0, 5], "sub-report": [0, 5] },
    });
    const maxTokens = 12_000;
    const result = await world.research({ query, strategy: "minddr", budget: { maxTokens }, concurrency: 1 });
    expectReport(result, "budget:tokens");
    const u = result.record.usage!;
    expect(u.inputTokens! + u.outputTokens!).toBeLessThanOrEqual(maxTokens);
  });

  it("stops at the iteration limit (search steps)", async () => {
    world = await startResearchWorld({
      subtasks: 3,
      expectCalls: {
        planner: 1,
        "search-step": 2,
        reader: 2,
        "sub-report": 3,
        outline: 1,
        section: 4,
        coherence: 1,
      },
    });
    const result = await world.research({
      query,
      strategy: "minddr",
      budget: { maxIterations: 2 },
      concurrency: 1,
    });
    expectReport(result, "budget:iterations");
    expect(world.script.counts["search-step"]).toBe(2);
  });

  it("stops at the cost limit, never exceeding it", async () => {
    world = await startResearchWorld({
      subtasks: 5,
      price: { inputPerMTok: 10, outputPerMTok: 30 },
      expectCalls: { ...WRITING, planner: 1, "search-step": [1, 10], reader: [0, 5], "sub-report": [0, 5] },
    });
    const maxCostUsd = 0.1;
    const result = await world.research({
      query,
      strategy: "minddr",
      budget: { maxCostUsd },
      concurrency: 1,
    });
    expectReport(result, "budget:cost");
    expect(result.record.usage!.costUsd!).toBeLessThanOrEqual(maxCostUsd);
  });

  it("stops at the wall-time limit and writes the report without further model calls if time is up", async () => {
    let offset = 0;
    const clock: Clock = { now: () => Date.UTC(2026, 10, 22) + offset, sleep: systemClock.sleep };
    world = await startResearchWorld({
      subtasks: 5,
      expectCalls: { ...WRITING, planner: 1, "search-step": [1, 10], reader: [0, 5], "sub-report": [0, 5] },
      onCall: () => {
        offset += 10_000;
      },
    });
    const result = await world.research(
      { query, strategy: "minddr", budget: { maxWallMs: 60_000 }, concurrency: 1 },
      { clock },
    );
    expectReport(result, "budget:wallTime");
  });
});
