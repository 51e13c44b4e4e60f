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

describe("BudgetLedger boundaries", () => {
  // Binary fractions, so that every sum below is exact.
  const price = { input: 1 / 2048, output: 1 / 1024 };

  it("names each limit that is reached, in a fixed order, exactly at the limit", () => {
    const clock = instantClock();
    const ledger = new BudgetLedger({
      limits: { maxWallMs: 1000, maxTokens: 1000, maxCostUsd: 1, maxToolCalls: 1, maxIterations: 1 },
      clock,
    });
    expect(ledger.exhausted()).toBeNull();
    ledger.startIteration();
    expect(ledger.exhausted()).toBe("iterations");
    ledger.reserveToolCall();
    expect(ledger.exhausted()).toBe("toolCalls");
    ledger.recordLlm({ inputTokens: 1, outputTokens: 0, costUsd: 1 }, 0);
    expect(ledger.exhausted()).toBe("cost");
    ledger.recordLlm({ inputTokens: 1000 - MIN_OUTPUT_TOKENS, outputTokens: 0, costUsd: 0 }, 0);
    expect(ledger.exhausted()).toBe("tokens");
    clock.advance(999);
    expect(ledger.exhausted()).toBe("tokens");
    clock.advance(1);
    expect(ledger.exhausted()).toBe("wallTime");
  });

  it("counts the room for a minimal answer and reserved calls in exhausted()", () => {
    const ledger = new BudgetLedger({ limits: { maxTokens: 1000 }, clock: instantClock() });
    ledger.recordLlm({ inputTokens: 1000 - MIN_OUTPUT_TOKENS - 1, outputTokens: 0, costUsd: null }, 0);
    // Exactly one minimal answer (plus one token) still fits.
    expect(ledger.exhausted()).toBeNull();
    ledger.recordLlm({ inputTokens: 1, outputTokens: 0, costUsd: null }, 0);
    expect(ledger.exhausted()).toBeNull();
    const reserved = ledger.reserveLlm({
      estimatedInputTokens: 0,
      maxOutputTokens: MIN_OUTPUT_TOKENS,
      ...noPrice,
    });
    expect(reserved.maxOutputTokens).toBe(MIN_OUTPUT_TOKENS);
    expect(ledger.exhausted()).toBe("tokens");
    ledger.release(reserved);
    expect(ledger.exhausted()).toBeNull();
  });

  it("counts reserved dollars in exhausted() and reaches the cost limit exactly at it", () => {
    const ledger = new BudgetLedger({ limits: { maxCostUsd: 1 }, clock: instantClock() });
    const r = ledger.reserveLlm({ estimatedInputTokens: 0, maxOutputTokens: 5000, pricePerToken: price });
    expect(r).toMatchObject({ maxOutputTokens: 1024, costUsd: 1 });
    expect(ledger.exhausted()).toBe("cost");
    ledger.release(r);
    expect(ledger.exhausted()).toBeNull();
    ledger.recordLlm({ inputTokens: 1, outputTokens: 1, costUsd: 0.5 }, 0);
    expect(ledger.exhausted()).toBeNull();
    ledger.recordLlm({ inputTokens: 1, outputTokens: 1, costUsd: 0.5 }, 0);
    expect(ledger.exhausted()).toBe("cost");
  });

  it("reserves input plus output tokens, rounding the input up and the output cap down", () => {
    const ledger = new BudgetLedger({ limits: { maxTokens: 10_000 }, clock: instantClock() });
    const r = ledger.reserveLlm({ estimatedInputTokens: 100.2, maxOutputTokens: 200.9, ...noPrice });
    expect(r).toMatchObject({ maxOutputTokens: 200, tokens: 301, costUsd: 0 });
    const tiny = ledger.reserveLlm({ estimatedInputTokens: -5, maxOutputTokens: 0.5, ...noPrice });
    expect(tiny).toMatchObject({ maxOutputTokens: 1, tokens: 1 });
    expect(tiny.id).toBe(r.id + 1);
    ledger.settleLlm(r, { inputTokens: null, outputTokens: 7, costUsd: null });
    ledger.settleLlm(tiny, { inputTokens: 7, outputTokens: null, costUsd: null });
    expect(ledger.snapshot().used).toMatchObject({ tokens: 302, unknownTokenCalls: 2, llmCalls: 2 });
  });

  it("grants a call whose output cap is below the minimal answer when that cap fits exactly", () => {
    const ledger = new BudgetLedger({ limits: { maxTokens: 100 }, clock: instantClock() });
    // 100 − 90 = 10 tokens of room for an asked cap of 10: granted as is.
    expect(
      ledger.reserveLlm({ estimatedInputTokens: 90, maxOutputTokens: 10, ...noPrice }).maxOutputTokens,
    ).toBe(10);
    const other = new BudgetLedger({ limits: { maxTokens: 100 }, clock: instantClock() });
    expect(
      limitOf(() => other.reserveLlm({ estimatedInputTokens: 91, maxOutputTokens: 10, ...noPrice })),
    ).toBe("tokens");
    // A room of exactly the minimal answer is enough.
    const third = new BudgetLedger({ limits: { maxTokens: 100 }, clock: instantClock() });
    expect(
      third.reserveLlm({ estimatedInputTokens: 100 - MIN_OUTPUT_TOKENS, maxOutputTokens: 500, ...noPrice })
        .maxOutputTokens,
    ).toBe(MIN_OUTPUT_TOKENS);
  });

  it("reserves the call's worst-case cost and refuses only below the minimal answer's cost", () => {
    const ledger = new BudgetLedger({ limits: { maxCostUsd: 64 }, clock: instantClock() });
    const r = ledger.reserveLlm({ estimatedInputTokens: 1024, maxOutputTokens: 2048, pricePerToken: price });
    expect(r).toMatchObject({ maxOutputTokens: 2048, tokens: 3072, costUsd: 2.5 });
    expect(ledger.snapshot().used.costUsd).toBe(0);
    // The reservation counts against a second call: 64 − 2.5 − 1 (input) leaves 60.5 → 61,952.
    const r2 = ledger.reserveLlm({
      estimatedInputTokens: 2048,
      maxOutputTokens: 1_000_000,
      pricePerToken: price,
    });
    expect(r2).toMatchObject({ maxOutputTokens: 61_952, costUsd: 61.5 });
    // Room for exactly the minimal answer is enough; a token of input more is not.
    const p = { input: 1 / 128, output: 1 / 128 };
    const exact = new BudgetLedger({ limits: { maxCostUsd: 1 }, clock: instantClock() });
    expect(
      exact.reserveLlm({
        estimatedInputTokens: 128 - MIN_OUTPUT_TOKENS,
        maxOutputTokens: 500,
        pricePerToken: p,
      }).maxOutputTokens,
    ).toBe(MIN_OUTPUT_TOKENS);
    const over = new BudgetLedger({ limits: { maxCostUsd: 1 }, clock: instantClock() });
    expect(
      limitOf(() =>
        over.reserveLlm({
          estimatedInputTokens: 129 - MIN_OUTPUT_TOKENS,
          maxOutputTokens: 500,
          pricePerToken: p,
        }),
      ),
    ).toBe("cost");
    // A cap below the minimal answer needs only its own cost.
    const small = new BudgetLedger({ limits: { maxCostUsd: 1 }, clock: instantClock() });
    expect(
      small.reserveLlm({ estimatedInputTokens: 120, maxOutputTokens: 8, pricePerToken: p }).maxOutputTokens,
    ).toBe(8);
  });

  it("does not cap the output by cost when output is free, nor by cost when the price is unknown", () => {
    const ledger = new BudgetLedger({ limits: { maxCostUsd: 1 }, clock: instantClock() });
    const free = ledger.reserveLlm({
      estimatedInputTokens: 1024,
      maxOutputTokens: 5000,
      pricePerToken: { input: 1 / 2048, output: 0 },
    });
    expect(free).toMatchObject({ maxOutputTokens: 5000, costUsd: 0.5 });
    // Free output still fits when the input takes every remaining dollar.
    const spent = new BudgetLedger({ limits: { maxCostUsd: 1 }, clock: instantClock() });
    expect(
      spent.reserveLlm({
        estimatedInputTokens: 2048,
        maxOutputTokens: 300,
        pricePerToken: { input: 1 / 2048, output: 0 },
      }),
    ).toMatchObject({ maxOutputTokens: 300, tokens: 2348, costUsd: 1 });
    const unknown = ledger.reserveLlm({ estimatedInputTokens: 1e6, maxOutputTokens: 5000, ...noPrice });
    expect(unknown).toMatchObject({ maxOutputTokens: 5000, costUsd: 0 });
    // Without a cost limit a priced call reserves no dollars.
    const unlimited = new BudgetLedger({ clock: instantClock() });
    expect(
      unlimited.reserveLlm({ estimatedInputTokens: 10, maxOutputTokens: 10, pricePerToken: price }).costUsd,
    ).toBe(0);
  });

  it("settles a reservation once: a second settle or a settle after release counts nothing", () => {
    const ledger = new BudgetLedger({ limits: { maxTokens: 10_000 }, clock: instantClock() });
    const r = ledger.reserveLlm({ estimatedInputTokens: 10, maxOutputTokens: 10, ...noPrice });
    ledger.settleLlm(r, { inputTokens: 5, outputTokens: 5, costUsd: 0.5 });
    ledger.settleLlm(r, { inputTokens: 5, outputTokens: 5, costUsd: 0.5 });
    const released = ledger.reserveLlm({ estimatedInputTokens: 10, maxOutputTokens: 10, ...noPrice });
    ledger.release(released);
    ledger.settleLlm(released, { inputTokens: 5, outputTokens: 5, costUsd: 0.5 });
    expect(ledger.snapshot().used).toMatchObject({
      tokens: 10,
      costUsd: 0.5,
      llmCalls: 1,
      unknownTokenCalls: 0,
      unknownCostCalls: 0,
    });
  });

  it("counts calls replayed from the journal without refusing them", () => {
    const ledger = new BudgetLedger({ limits: { maxToolCalls: 1, maxTokens: 100 }, clock: instantClock() });
    ledger.reserveToolCall();
    ledger.recordReplayedToolCall();
    ledger.recordReplayedToolCall();
    ledger.recordLlm({ inputTokens: 60, outputTokens: 60, costUsd: 0.25 }, 999);
    ledger.recordLlm({ inputTokens: null, outputTokens: null, costUsd: null }, 30);
    expect(ledger.snapshot().used).toMatchObject({
      toolCalls: 3,
      tokens: 150,
      costUsd: 0.25,
      llmCalls: 2,
      unknownTokenCalls: 1,
      unknownCostCalls: 1,
    });
    // Nothing stays reserved after a recorded call.
    const fresh = new BudgetLedger({ limits: { maxTokens: 1000 }, clock: instantClock() });
    fresh.recordLlm({ inputTokens: 0, outputTokens: 0, costUsd: null }, 500);
    expect(
      fresh.reserveLlm({ estimatedInputTokens: 0, maxOutputTokens: 1000, ...noPrice }).maxOutputTokens,
    ).toBe(1000);
  });

  it("keeps reservations in flight apart from calls recorded in between", () => {
    const ledger = new BudgetLedger({ limits: { maxTokens: 1000 }, clock: instantClock() });
    const first = ledger.reserveLlm({ estimatedInputTokens: 0, maxOutputTokens: 400, ...noPrice });
    ledger.recordLlm({ inputTokens: 0, outputTokens: 0, costUsd: null }, 0);
    const second = ledger.reserveLlm({ estimatedInputTokens: 0, maxOutputTokens: 400, ...noPrice });
    expect(second.id).not.toBe(first.id);
    // Both reservations count: 200 tokens are left.
    expect(
      ledger.reserveLlm({ estimatedInputTokens: 0, maxOutputTokens: 500, ...noPrice }).maxOutputTokens,
    ).toBe(200);
  });

  it("resumes from an earlier attempt's usage, its wall time counted from the given start", () => {
    const clock = instantClock(50_000);
    const used = {
      tokens: 11,
      toolCalls: 2,
      wallMs: 3000,
      costUsd: 0.5,
      iterations: 1,
      llmCalls: 4,
      unknownTokenCalls: 1,
      unknownCostCalls: 2,
    };
    const ledger = new BudgetLedger({
      limits: { maxWallMs: 10_000, maxIterations: 2 },
      clock,
      startedAt: 49_000,
      used,
    });
    expect(ledger.snapshot()).toEqual({
      limits: { maxWallMs: 10_000, maxIterations: 2 },
      used: { ...used, wallMs: 4000 },
    });
    expect(ledger.startIteration()).toBe(2);
    expect(limitOf(() => ledger.startIteration())).toBe("iterations");
    const now = new BudgetLedger({ clock });
    clock.advance(250);
    expect(now.wallMs()).toBe(250);
  });

  it("hands out copies of the limits in a snapshot", () => {
    const ledger = new BudgetLedger({ limits: { maxTokens: 500 }, clock: instantClock() });
    const snap = ledger.snapshot();
    snap.limits.maxTokens = 1;
    expect(ledger.snapshot().limits.maxTokens).toBe(500);
    expect(ledger.limits.maxTokens).toBe(500);
  });

  it("checks time alone with checkTime(), exactly at the limit", () => {
    const clock = instantClock();
    const ledger = new BudgetLedger({ limits: { maxWallMs: 100 }, clock });
    clock.advance(99);
    expect(limitOf(() => ledger.checkTime())).toBeNull();
    clock.advance(1);
    expect(limitOf(() => ledger.checkTime())).toBe("wallTime");
    expect(limitOf(() => new BudgetLedger({ clock }).checkTime())).toBeNull();
  });

  it("names the limit only of a BUDGET_EXCEEDED error", () => {
    expect(exceededLimit(new DossierError("BUDGET_EXCEEDED", "x", { details: { limit: "cost" } }))).toBe(
      "cost",
    );
    expect(exceededLimit(new DossierError("TIMEOUT", "x", { details: { limit: "cost" } }))).toBeNull();
    expect(exceededLimit(Object.assign(new Error("x"), { code: "BUDGET_EXCEEDED" }))).toBeNull();
    const ledger = new BudgetLedger({ limits: { maxIterations: 1 }, clock: instantClock() });
    ledger.startIteration();
    try {
      ledger.startIteration();
    } catch (error) {
      expect((error as DossierError).message).toBe("budget limit reached: iterations");
      expect((error as DossierError).details).toEqual({ limit: "iterations" });
    }
  });

  it("rejects limits that are not positive integers where they must be", () => {
    const clock = instantClock();
    expect(() => new BudgetLedger({ limits: { maxTokens: 1.5 }, clock })).toThrow();
    expect(() => new BudgetLedger({ limits: { maxToolCalls: -1 }, clock })).toThrow();
    expect(new BudgetLedger({ limits: { maxToolCalls: 0 }, clock }).exhausted()).toBe("toolCalls");
    expect(() => new BudgetLedger({ limits: { maxWallMs: 0 }, clock })).toThrow();
    expect(() => new BudgetLedger({ limits: { maxCostUsd: 0 }, clock })).toThrow();
    expect(() => new BudgetLedger({ limits: { maxIterations: 0 }, clock })).toThrow();
  });
});
