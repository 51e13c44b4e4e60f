import { describe, expect, it } from "vitest";
import { BudgetLedger } from "../core/budget.ts";
import { explorationGuard } from "./exploration-budget.ts";

const clockAt = (t: { now: number }) => ({ now: () => t.now, sleep: async () => {} });

describe("exploration guard", () => {
  it("stops exploring when the exploration share of wall time is spent, keeping the rest for writing", () => {
    const t = { now: 0 };
    const budget = new BudgetLedger({ limits: { maxWallMs: 100_000 }, clock: clockAt(t) });
    const guard = explorationGuard({ budget }, 0.6);
    t.now = 59_000;
    expect(guard()).toBeNull();
    t.now = 60_000;
    expect(guard()).toBe("budget:wallTime");
    expect(budget.exhausted()).toBeNull();
  });

  it("lets an outer loop own the iteration limit, but not any other limit", () => {
    const budget = new BudgetLedger({
      limits: { maxIterations: 1, maxToolCalls: 1 },
      clock: clockAt({ now: 0 }),
    });
    budget.startIteration();
    expect(explorationGuard({ budget })()).toBe("budget:iterations");
    expect(explorationGuard({ budget }, 0.6, { outerLoopIterations: true })()).toBeNull();
    budget.reserveToolCall();
    expect(explorationGuard({ budget }, 0.6, { outerLoopIterations: true })()).toBe("budget:toolCalls");
  });
});
