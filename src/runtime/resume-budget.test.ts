/**
 * The budget of a resumed run counts what its earlier attempts paid for: calls lost in flight at
 * a crash (priced at their estimated input and whole output cap) and answers its journal lacks
 * count against `maxCostUsd` from the start, so a resumed run stops at the real total, and its
 * usage reports the whole history.
 */

import { describe, expect, it } from "vitest";
import { instantClock } from "../../test/scripted/clocks.ts";
import { memoryStore, scriptedRegistry } from "../../test/scripted/harness.ts";
import { scriptedModel } from "../../test/scripted/scripted-model.ts";
import type { EarlierCalls } from "./earlier-usage.ts";
import { startRun } from "./run.ts";

const MODEL = "openai-compatible:scripted-default";
const PRICE = { inputPerMTok: 3, outputPerMTok: 15 };
/** Two calls lost at a crash (0.063 USD each at most) and one answered whose answer was not journaled. */
const EARLIER: EarlierCalls = {
  lost: [
    { role: "writer", model: MODEL, estimatedInputTokens: 1_000, maxOutputTokens: 4_000 },
    { role: "writer", model: MODEL, estimatedInputTokens: 999.5, maxOutputTokens: 4_000 },
  ],
  unjournaled: [{ inputTokens: 100, outputTokens: 10, costUsd: 0.00045 }],
  journaled: {},
};

/** Resumes a run whose earlier attempts made `earlierCalls`; `answers`: whether its one call is answered. */
async function resumeWith(maxCostUsd: number, earlierCalls: EarlierCalls, answers: boolean) {
  const store = memoryStore();
  const model = scriptedModel(answers ? [{ text: "draft", usage: { input: 10, output: 5 } }] : []);
  const registry = scriptedRegistry({ default: model }, { prices: { [MODEL]: PRICE } });
  await store.runs.create({
    id: "run-1",
    query: "q",
    strategy: "test",
    options: { strategy: "test" },
    createdAt: "2026-01-01T00:00:00.000Z",
  });
  const handle = startRun({
    store,
    registry,
    clock: instantClock(),
    runId: "run-1",
    query: "q",
    options: { strategy: "test", budget: { maxCostUsd } },
    resume: { previousStatus: "interrupted", previousWallMs: 0, journaledSteps: 0, earlierCalls },
    strategy: async (ctx) => {
      await ctx.generate({ role: "writer", prompt: "write", maxOutputTokens: 100 });
      return {};
    },
  });
  const result = await handle.done;
  const events = await store.events.list("run-1");
  return { ...result, events, model };
}

describe("budget of a resumed run", () => {
  it("counts lost and unjournaled earlier calls against --max-cost: the run stops at the real total", async () => {
    const { record, events } = await resumeWith(0.1, EARLIER, false);
    expect(record.status).toBe("failed");
    expect(record.stopReason).toBe("budget:cost");
    // Reported: the three earlier calls (none made again), the lost ones at their estimates.
    const lostCost = (2 * 1_000 * PRICE.inputPerMTok + 2 * 4_000 * PRICE.outputPerMTok) / 1_000_000;
    expect(record.usage).toMatchObject({ llmCalls: 3, inputTokens: 2_100, outputTokens: 8_010 });
    expect(record.usage?.costUsd).toBeCloseTo(lostCost + 0.00045, 12);
    expect(events.find((e) => e.type === "run-resume")).toMatchObject({ lostCalls: 2, earlierLlmCalls: 3 });
    expect(events.some((e) => e.type === "llm-start")).toBe(false);
  });

  it("lets the call through when the whole history fits the limit, and reports it on top", async () => {
    const { record, model } = await resumeWith(1, EARLIER, true);
    expect(record.status).toBe("completed");
    expect(model.calls).toHaveLength(1);
    expect(record.usage).toMatchObject({ llmCalls: 4, inputTokens: 2_110, outputTokens: 8_015 });
  });
});
