import { describe, expect, it } from "vitest";
import { budgetGauges } from "./gauges.ts";

describe("budget gauges", () => {
  const base = {
    usage: { tokens: 8500, costUsd: 0.5, toolCalls: 12, llmCalls: 3 },
    startedAt: "2026-01-01T00:00:00.000Z",
    endedAt: null,
  };

  it("measures each limit, warns from 80 % and marks an exhausted one", () => {
    const now = Date.parse("2026-01-01T00:01:30.000Z");
    const gauges = budgetGauges(
      { ...base, limits: { maxTokens: 10_000, maxToolCalls: 12, maxWallMs: 600_000 } },
      now,
    );
    const by = Object.fromEntries(gauges.map((g) => [g.key, g]));
    expect(gauges.map((g) => g.key)).toEqual(["time", "tokens", "cost", "toolCalls"]);
    expect(by.time).toMatchObject({ used: 90_000, limit: 600_000, level: "ok", text: "1m 30s of 10m 00s" });
    expect(by.time!.ratio).toBeCloseTo(0.15);
    expect(by.tokens).toMatchObject({ ratio: 0.85, level: "warn", text: "8.5k of 10.0k" });
    expect(by.toolCalls).toMatchObject({ ratio: 1, level: "over" });
    // No cost limit: the figure alone, no ratio.
    expect(by.cost).toMatchObject({ limit: null, ratio: 0, level: "ok", text: "$0.500" });
  });

  it("stops the clock at the end of the run and clamps an overrun", () => {
    const g = budgetGauges(
      {
        ...base,
        endedAt: "2026-01-01T00:00:10.000Z",
        usage: { ...base.usage, costUsd: 3 },
        limits: { maxCostUsd: 2 },
      },
      Date.parse("2026-01-01T05:00:00.000Z"),
    );
    expect(g[0]).toMatchObject({ used: 10_000, text: "10s" });
    expect(g[2]).toMatchObject({ ratio: 1, level: "over", text: "$3.00 of $2.00" });
  });

  it("says an unknown cost is unknown, never $0", () => {
    const g = budgetGauges(
      { ...base, usage: { ...base.usage, costUsd: null }, limits: { maxCostUsd: 2 } },
      Date.parse("2026-01-01T00:00:10.000Z"),
    );
    expect(g[2]).toMatchObject({ key: "cost", ratio: 0, level: "ok", text: "unknown of $2.00" });
  });
});
