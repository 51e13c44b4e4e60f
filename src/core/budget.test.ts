import { describe, expect, it } from "vitest";
import { instantClock } from "../../test/scripted/clocks.ts";
import { BudgetLedger, exceededLimit, MIN_OUTPUT_TOKENS } from "./budget.ts";
import { DossierError } from "./errors.ts";

const noPrice = { pricePerToken: null };

function limitOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(DossierError);
    return exceededLimit(error);
  }
}

describe("BudgetLedger", () => {
  it("refuses a model call once the token limit cannot hold its input plus a minimal answer", () => {
    const ledger = new BudgetLedger({ limits: { maxTokens: 1000 }, clock: instantClock() });
    const r1 = ledger.reserveLlm({ estimatedInputTokens: 400, maxOutputTokens: 300, ...noPrice });
    expect(r1.maxOutputTokens).toBe(300);
    ledger.settleLlm(r1, { inputTokens: 380, outputTokens: 290, costUsd: null });
    expect(ledger.snapshot().used.tokens).toBe(670);
    // 330 left: input 200 leaves 130 for output, so the output cap is lowered.
    const r2 = ledger.reserveLlm({ estimatedInputTokens: 200, maxOutputTokens: 500, ...noPrice });
    expect(r2.maxOutputTokens).toBe(130);
    ledger.settleLlm(r2, { inputTokens: 200, outputTokens: 130, costUsd: null });
    expect(ledger.snapshot().used.tokens).toBe(1000);
    expect(
      limitOf(() => ledger.reserveLlm({ estimatedInputTokens: 1, maxOutputTokens: 10, ...noPrice })),
    ).toBe("tokens");
    expect(ledger.exhausted()).toBe("tokens");
  });

  it("counts reservations of calls in flight so concurrent calls cannot overrun", () => {
    const ledger = new BudgetLedger({ limits: { maxTokens: 1000 }, clock: instantClock() });
    ledger.reserveLlm({ estimatedInputTokens: 300, maxOutputTokens: 300, ...noPrice });
    ledger.reserveLlm({ estimatedInputTokens: 200, maxOutputTokens: 100, ...noPrice });
    // 100 tokens remain unreserved: an input of 50 leaves 50 < MIN_OUTPUT_TOKENS.
    expect(MIN_OUTPUT_TOKENS).toBeGreaterThan(50);
    expect(
      limitOf(() => ledger.reserveLlm({ estimatedInputTokens: 50, maxOutputTokens: 200, ...noPrice })),
    ).toBe("tokens");
  });

  it("releases a reservation of a failed call and counts unknown usage at its reservation", () => {
    const ledger = new BudgetLedger({ limits: { maxTokens: 1000 }, clock: instantClock() });
    const r = ledger.reserveLlm({ estimatedInputTokens: 400, maxOutputTokens: 500, ...noPrice });
    ledger.release(r);
    expect(ledger.snapshot().used.tokens).toBe(0);
    const r2 = ledger.reserveLlm({ estimatedInputTokens: 100, maxOutputTokens: 200, ...noPrice });
    ledger.settleLlm(r2, { inputTokens: null, outputTokens: null, costUsd: null });
    const used = ledger.snapshot().used;
    expect(used.tokens).toBe(300);
    expect(used.unknownTokenCalls).toBe(1);
    expect(used.unknownCostCalls).toBe(1);
    expect(used.llmCalls).toBe(1);
  });

  it("stops tool calls at the limit", () => {
    const ledger = new BudgetLedger({ limits: { maxToolCalls: 2 }, clock: instantClock() });
    ledger.reserveToolCall();
    ledger.reserveToolCall();
    expect(limitOf(() => ledger.reserveToolCall())).toBe("toolCalls");
    expect(ledger.snapshot().used.toolCalls).toBe(2);
  });

  it("stops every call once the wall-time limit has passed", () => {
    const clock = instantClock();
    const ledger = new BudgetLedger({ limits: { maxWallMs: 60_000 }, clock });
    ledger.reserveToolCall();
    clock.advance(60_000);
    expect(limitOf(() => ledger.reserveToolCall())).toBe("wallTime");
    expect(
      limitOf(() => ledger.reserveLlm({ estimatedInputTokens: 1, maxOutputTokens: 1, ...noPrice })),
    ).toBe("wallTime");
    expect(limitOf(() => ledger.startIteration())).toBe("wallTime");
  });

  it("lowers the output cap to what the cost limit allows and refuses when nothing fits", () => {
    const ledger = new BudgetLedger({ limits: { maxCostUsd: 0.01 }, clock: instantClock() });
    const price = { input: 1e-6, output: 1e-5 }; // $1 / $10 per M tokens
    const r = ledger.reserveLlm({ estimatedInputTokens: 1000, maxOutputTokens: 4000, pricePerToken: price });
    // $0.001 for input leaves $0.009 → 900 output tokens.
    expect(r.maxOutputTokens).toBe(900);
    ledger.settleLlm(r, { inputTokens: 1000, outputTokens: 800, costUsd: 0.009 });
    expect(ledger.snapshot().used.costUsd).toBeCloseTo(0.009, 10);
    expect(
      limitOf(() =>
        ledger.reserveLlm({ estimatedInputTokens: 1000, maxOutputTokens: 100, pricePerToken: price }),
      ),
    ).toBe("cost");
  });

  it("limits iterations of the outer loop", () => {
    const ledger = new BudgetLedger({ limits: { maxIterations: 2 }, clock: instantClock() });
    expect(ledger.startIteration()).toBe(1);
    expect(ledger.startIteration()).toBe(2);
    expect(limitOf(() => ledger.startIteration())).toBe("iterations");
  });

  it("has no limits by default and reports usage", () => {
    const ledger = new BudgetLedger({ clock: instantClock() });
    for (let i = 0; i < 100; i++) ledger.reserveToolCall();
    const r = ledger.reserveLlm({ estimatedInputTokens: 1e6, maxOutputTokens: 1e5, ...noPrice });
    expect(r.maxOutputTokens).toBe(1e5);
    expect(ledger.exhausted()).toBeNull();
  });

  it("rejects invalid limits", () => {
    expect(() => new BudgetLedger({ limits: { maxTokens: -1 }, clock: instantClock() })).toThrow();
  });
});
