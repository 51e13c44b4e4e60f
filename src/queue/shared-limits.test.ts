/**
 * Provider limits shared by runs through the Redis limiter: two runs' tool gateways together
 * never call a shared provider more often at once than its policy allows (each alone would use
 * its full limit), a provider of this machine's own work (the corpus) takes no shared slot, and
 * two workers' model registries together never have more requests in flight at one model
 * provider than its limit. Skipped with a notice when Redis does not answer.
 */

import { randomBytes } from "node:crypto";
import { generateText } from "ai";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { scriptedModel } from "../../test/scripted/scripted-model.ts";
import { redisProblem, servicesAnswer, TEST_REDIS_URL } from "../../test/services.ts";
import { createModelRegistry } from "../llm/registry.ts";
import { limitModels } from "../runtime/limited-models.ts";
import { ToolGateway } from "../tools/gateway.ts";
import { openRedisLimiter, type RedisLimiter } from "./redis-limiter.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function limiters(n: number): RedisLimiter[] {
  const prefix = `ds${randomBytes(5).toString("hex")}`;
  cleanups.push(async () => {
    const redis = new Redis(TEST_REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });
  return Array.from({ length: n }, () => {
    const limiter = openRedisLimiter({ url: `${TEST_REDIS_URL}?prefix=${prefix}`, pollMs: 5 });
    cleanups.push(() => limiter.close());
    return limiter;
  });
}

/** Counts calls under way and the most at once. */
function inFlight() {
  let now = 0;
  const counter = {
    peak: 0,
    async during<T>(ms: number, value: T): Promise<T> {
      now++;
      counter.peak = Math.max(counter.peak, now);
      await new Promise((resolve) => setTimeout(resolve, ms));
      now--;
      return value;
    },
  };
  return counter;
}

const fast = {
  retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1, jitter: 0, maxRetryAfterMs: 1 },
  cacheTtlMs: 0,
};

if (servicesAnswer([await redisProblem()])) {
  describe("provider limits shared through Redis", () => {
    it("holds two runs' calls to a shared provider to its limit together", async () => {
      const [a, b] = limiters(2);
      const providers = { searchy: { ...fast, concurrency: 2 } };
      const counter = inFlight();
      const runs = [a, b].map((limiter) => new ToolGateway({ limiter: limiter!, providers }));
      const calls = runs.flatMap((gateway) =>
        Array.from({ length: 6 }, (_, i) =>
          gateway.call({
            tool: "web_search",
            provider: "searchy",
            args: { i },
            run: () => counter.during(25, [i]),
          }),
        ),
      );
      const results = await Promise.all(calls);
      expect(results.every((r) => r.ok)).toBe(true);
      expect(counter.peak).toBe(2);

      // Without the shared limiter each run uses its own limit: four at once.
      const alone = inFlight();
      const separate = [0, 1].map(() => new ToolGateway({ providers }));
      await Promise.all(
        separate.flatMap((gateway) =>
          Array.from({ length: 6 }, (_, i) =>
            gateway.call({
              tool: "web_search",
              provider: "searchy",
              args: { i },
              run: () => alone.during(25, [i]),
            }),
          ),
        ),
      );
      expect(alone.peak).toBe(4);
    });

    it("takes no shared slot for this machine's own work (the corpus)", async () => {
      const [limiter] = limiters(1);
      const gateway = new ToolGateway({ limiter: limiter!, providers: { searchy: fast, corpus: fast } });
      const seen: number[] = [];
      await gateway.call({
        tool: "local_search",
        provider: "corpus",
        args: {},
        run: async () => seen.push(await limiter!.held("corpus")),
      });
      await gateway.call({
        tool: "web_search",
        provider: "searchy",
        args: {},
        run: async () => seen.push(await limiter!.held("searchy")),
      });
      expect(seen).toEqual([0, 1]);
      expect(await limiter!.held("searchy")).toBe(0);
    });

    it("holds two workers' requests to a model provider to its limit together", async () => {
      const counter = inFlight();
      const registries = limiters(2).map((limiter) => {
        const scripted = scriptedModel(
          Array.from({ length: 5 }, () => ({ reply: () => counter.during(25, "answered") })),
        );
        const registry = createModelRegistry({
          defaultModel: "openai-compatible:scripted",
          models: { "openai-compatible:scripted": scripted.model },
        });
        return limitModels(registry, { limiter, limitsOf: () => ({ concurrency: 3 }) });
      });
      const answers = await Promise.all(
        registries.flatMap((registry) =>
          Array.from({ length: 5 }, (_, i) =>
            generateText({ model: registry.forRole("default").model, prompt: `question ${i}` }),
          ),
        ),
      );
      expect(answers.map((a) => a.text)).toEqual(Array(10).fill("answered"));
      expect(counter.peak).toBe(3);
      // The role's model is wrapped once; the registry otherwise answers as before.
      const [registry] = registries;
      expect(registry!.forRole("default").model).toBe(registry!.forRole("writer").model);
      expect(registry!.forRole("default").name).toBe("openai-compatible:scripted");
    });
  });
}
