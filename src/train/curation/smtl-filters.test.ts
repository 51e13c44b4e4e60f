import { describe, expect, it } from "vitest";
import type { RecordedRun } from "../recorded-run.ts";
import { fixtureCall, fixtureRow, fixtureRun, fixtureTool } from "../test-fixtures.ts";
import { curateSmtl, trajectoryTokens } from "./smtl-filters.ts";

/** A run of `steps` steps with `calls` tool calls per step, its last call at `tokens` tokens. */
function trajectory(
  runId: string,
  task: string,
  steps: number,
  calls = 3,
  tokens = 1000,
  extra: Partial<RecordedRun> = {},
) {
  return fixtureRun({
    runId,
    row: fixtureRow({ id: task }),
    calls: Array.from({ length: steps }, (_, i) =>
      fixtureCall({
        runId,
        callId: `L${i + 1}`,
        step: i + 1,
        usage: { inputTokens: tokens - 100, outputTokens: i === steps - 1 ? 100 : 50, costUsd: null },
      }),
    ),
    toolCalls: Array.from({ length: steps * calls }, (_, i) =>
      fixtureTool({ callId: `T${i}`, step: Math.floor(i / calls) + 1 }),
    ),
    ...extra,
  });
}

describe("SMTL curation (§5.1)", () => {
  it("measures the longest context, estimating unknown usage", () => {
    expect(trajectoryTokens(trajectory("r", "t", 2, 3, 5000))).toBe(5000);
    const unknown = fixtureCall({
      callId: "L1",
      step: 1,
      messages: [{ role: "user", content: "x".repeat(30) }],
      completion: "y".repeat(9),
      usage: { inputTokens: null, outputTokens: null, costUsd: null },
    });
    // input: 8 + (⌈30/3⌉ + 4) = 22; output ⌈9/3⌉ = 3 → 25
    expect(trajectoryTokens({ calls: [unknown] })).toBe(25);
  });

  it("keeps, per task, only the shortest correct trajectory that is format-valid, within 64K tokens and active enough", () => {
    const candidates = [
      { run: trajectory("a-long", "A", 6), correct: true },
      { run: trajectory("a-short", "A", 3), correct: true },
      { run: trajectory("a-shortest-wrong", "A", 2), correct: false },
      { run: trajectory("a-tie-more-tokens", "A", 3, 3, 2000), correct: true },
      {
        run: trajectory("a-malformed", "A", 1, 3, 1000, {
          calls: [fixtureCall({ runId: "a-malformed", callId: "L1", step: 1, formatErrors: ["bad"] })],
        }),
        correct: true,
      },
      { run: trajectory("b-huge", "B", 1, 3, 65_537), correct: true },
      { run: trajectory("b-limit", "B", 4, 3, 65_536), correct: true },
      { run: trajectory("b-lazy", "B", 2, 2), correct: true },
      { run: trajectory("c-wrong", "C", 2), correct: false },
    ];
    const { kept, rejected } = curateSmtl(candidates);
    expect(kept.map((r) => r.runId)).toEqual(["a-short", "b-limit"]);
    expect(Object.fromEntries(rejected.map((r) => [r.runId, r.reason]))).toEqual({
      "a-long": "not-shortest",
      "a-tie-more-tokens": "not-shortest",
      "a-shortest-wrong": "incorrect",
      "a-malformed": "format",
      "b-huge": "too-long",
      "b-lazy": "few-tool-calls", // 2 calls per step < 3
      "c-wrong": "incorrect",
    });
  });

  it("can turn off the tool-call constraint and change the cap", () => {
    const { kept } = curateSmtl([{ run: trajectory("lazy", "A", 2, 1, 9000), correct: true }], {
      minToolCallsPerStep: null,
      maxTokens: 10_000,
    });
    expect(kept.map((r) => r.runId)).toEqual(["lazy"]);
  });
});
