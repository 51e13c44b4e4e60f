import { describe, expect, it } from "vitest";
import { seededRandom } from "./seeded-random.ts";

describe("the seeded generator", () => {
  it("repeats its sequence for a seed, differs across seeds, stays in [0, 1) and fills it evenly", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const first = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(first);
    const c = seededRandom(43);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(first);
    const r = seededRandom(7);
    const deciles = new Array(10).fill(0);
    let outside = 0;
    for (let i = 0; i < 100_000; i++) {
      const x = r();
      if (!(x >= 0 && x < 1)) outside++;
      else deciles[Math.floor(x * 10)]++;
    }
    expect(outside).toBe(0);
    for (const n of deciles) expect(Math.abs(n - 10_000)).toBeLessThan(400);
  });
});
