import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BUILTIN_STRATEGIES, graphStrategy, minddrStrategy, offlineStrategy } from "./builtin.ts";
import { createStrategyRegistry, StrategyRegistry } from "./registry.ts";
import type { StrategyDefinition } from "./types.ts";

const custom: StrategyDefinition<Record<string, never>> = {
  name: "custom-1",
  description: "a test strategy",
  optionsSchema: z.object({}).strict(),
  roles: [],
  capabilities: { needsModel: false, web: false, local: true },
  estimate: () => ({ llm: [], tools: [0, 1] }),
  run: () => Promise.reject(new Error("not run in this test")),
};

describe("strategy registry", () => {
  it("holds the built-in strategies in order, then registered ones", () => {
    const registry = createStrategyRegistry([custom as StrategyDefinition<never>]);
    expect(registry.names()).toEqual([...BUILTIN_STRATEGIES.map((s) => s.name), "custom-1"]);
    expect(registry.names().slice(0, 3)).toEqual(["graph", "minddr", "offline"]);
    expect(registry.get("minddr")).toBe(minddrStrategy);
    expect(registry.has("custom-1")).toBe(true);
  });

  it("refuses duplicate and malformed names, and names the choices for an unknown one", () => {
    const registry = new StrategyRegistry().register(custom);
    expect(() => registry.register(custom)).toThrow(/already registered/);
    expect(() => registry.register({ ...custom, name: "Bad Name" })).toThrow(/lowercase word/);
    expect(() => registry.get("warp")).toThrow(/unknown strategy "warp": choose one of custom-1/);
  });

  it("built-in definitions declare what a run needs", () => {
    expect(offlineStrategy.capabilities.needsModel).toBe(false);
    expect(offlineStrategy.roles).toEqual([]);
    expect(graphStrategy.roles).toEqual(expect.arrayContaining(["router", "critic", "rubricer", "writer"]));
    expect(minddrStrategy.optionsSchema.safeParse({ maxSteps: 31 }).success).toBe(false);
    expect(graphStrategy.optionsSchema.safeParse({ maxSteps: 3 }).success).toBe(false);
    // Estimates scale with the options they depend on and never run anything.
    const small = minddrStrategy.estimate({ options: { maxSteps: 1, protocol: "json" }, webReading: true });
    const large = minddrStrategy.estimate({ options: { maxSteps: 12, protocol: "json" }, webReading: true });
    const calls = (e: typeof small) => e.llm.reduce((n, c) => n + c.count[1], 0);
    expect(calls(small)).toBeLessThan(calls(large));
    const noWeb = graphStrategy.estimate({ options: {}, webReading: false });
    expect(noWeb.llm.find((c) => c.role === "reader")?.count).toEqual([0, 0]);
  });
});
