import { describe, expect, it } from "vitest";
import { configSchema } from "../runtime/config.ts";
import { configuredLimits } from "./configured-limits.ts";

describe("the limits a worker's shared limiter applies", () => {
  it("are the caller's without settings", () => {
    const limits = configuredLimits({});
    expect(limits("searxng", { concurrency: 8 })).toEqual({ concurrency: 8 });
    expect(limits("model:openai", { concurrency: 8 })).toEqual({ concurrency: 8 });
  });

  it("take modelConcurrency for model providers and providerLimits by name over both", () => {
    const config = configSchema.parse({
      modelConcurrency: 16,
      providerLimits: {
        "model:anthropic": { concurrency: 4, ratePerSecond: 2 },
        tavily: { ratePerSecond: 5 },
      },
    });
    const limits = configuredLimits(config);
    expect(limits("model:openai", { concurrency: 8 })).toEqual({ concurrency: 16 });
    expect(limits("model:anthropic", { concurrency: 8 })).toEqual({ concurrency: 4, ratePerSecond: 2 });
    expect(limits("tavily", { concurrency: 4 })).toEqual({ concurrency: 4, ratePerSecond: 5 });
    expect(limits("searxng", { concurrency: 8, ratePerSecond: 1 })).toEqual({
      concurrency: 8,
      ratePerSecond: 1,
    });
  });

  it("refuses limits that are not whole positive numbers or unknown fields", () => {
    expect(configSchema.safeParse({ modelConcurrency: 0 }).success).toBe(false);
    expect(configSchema.safeParse({ providerLimits: { tavily: { concurrency: 1.5 } } }).success).toBe(false);
    expect(configSchema.safeParse({ providerLimits: { tavily: { slots: 2 } } }).success).toBe(false);
  });
});
