import { describe, expect, it } from "vitest";
import { balancedSample } from "./action-balanced.ts";

type Item = { id: string; action: string };
/** The natural distribution of one trajectory's actions: 1 initialize, 1 terminate, 4 expand, 40 search, 40 write. */
const pool: Item[] = [
  ...["initialize", "terminate"].map((action) => ({ id: action, action })),
  ...Array.from({ length: 4 }, (_, i) => ({ id: `expand-${i}`, action: "expand" })),
  ...Array.from({ length: 40 }, (_, i) => ({ id: `search-${i}`, action: "search" })),
  ...Array.from({ length: 40 }, (_, i) => ({ id: `write-${i}`, action: "write" })),
];
const weights = { initialize: 0.15, expand: 0.25, terminate: 0.2, search: 0.2, write: 0.2 };
const shares = (sample: Item[]) => {
  const counts: Record<string, number> = {};
  for (const item of sample) counts[item.action] = (counts[item.action] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).map(([a, c]) => [a, c / sample.length]));
};

describe("action-balanced sampling (A.5)", () => {
  it("matches the weights within ±2% over 10,000 seeded draws", () => {
    const sample = balancedSample(pool, { actionOf: (i) => i.action, weights, n: 10_000, seed: 20260101 });
    expect(sample).toHaveLength(10_000);
    const got = shares(sample);
    for (const [action, w] of Object.entries(weights))
      expect(Math.abs(got[action]! - w), action).toBeLessThanOrEqual(0.02);
    // and within an action, items are drawn evenly: 40 searches share ~2,000 draws
    const searches = new Set(sample.filter((i) => i.action === "search").map((i) => i.id));
    expect(searches.size).toBe(40);
  });

  it("gives the same sample for the same seed and another for another seed", () => {
    const draw = (seed: number) =>
      balancedSample(pool, { actionOf: (i) => i.action, weights, n: 50, seed }).map((i) => i.id);
    expect(draw(1)).toEqual(draw(1));
    expect(draw(1)).not.toEqual(draw(2));
  });

  it("never draws an unweighted action and spreads the weight of an absent one over the rest", () => {
    const noTerminate = pool.filter((i) => i.action !== "terminate");
    const sample = balancedSample(noTerminate, {
      actionOf: (i) => i.action,
      weights: { initialize: 1, search: 1, write: 2, terminate: 4 },
      n: 10_000,
      seed: 5,
    });
    const got = shares(sample);
    expect(got.expand).toBeUndefined();
    expect(Math.abs(got.initialize! - 0.25)).toBeLessThanOrEqual(0.02);
    expect(Math.abs(got.write! - 0.5)).toBeLessThanOrEqual(0.02);
  });

  it("refuses negative weights, fractional draws and a pool with nothing to draw", () => {
    const actionOf = (i: Item) => i.action;
    expect(() => balancedSample(pool, { actionOf, weights: { search: -1 }, n: 1, seed: 1 })).toThrow(/≥ 0/);
    expect(() => balancedSample(pool, { actionOf, weights, n: 1.5, seed: 1 })).toThrow(/whole number/);
    expect(() => balancedSample(pool, { actionOf, weights: { think: 1 }, n: 1, seed: 1 })).toThrow(/no item/);
    expect(balancedSample(pool, { actionOf, weights: { think: 1 }, n: 0, seed: 1 })).toEqual([]);
  });
});
