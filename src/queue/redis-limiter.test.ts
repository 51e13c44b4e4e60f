/**
 * The provider limiter on real Redis: several processes, each with its own limiter, never hold
 * more slots of a provider together than its limit (and do reach it), never take more than its
 * rate in any window of the server's clock, and get back the slots of a holder that was killed
 * once their lease ends. Skipped with a notice when Redis does not answer (failed instead with
 * DOSSIER_REQUIRE_SERVICES=1).
 */

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { redisProblem, servicesAnswer, TEST_REDIS_URL } from "../../test/services.ts";
import { openRedisLimiter, type RedisLimiter } from "./redis-limiter.ts";

const CHILD = fileURLToPath(new URL("../../test/queue/limiter-child.ts", import.meta.url));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A queue URL with a prefix of its own; its keys are deleted after the test. */
function freshUrl(): string {
  const prefix = `dl${randomBytes(5).toString("hex")}`;
  cleanups.push(async () => {
    const redis = new Redis(TEST_REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });
  return `${TEST_REDIS_URL}?prefix=${prefix}`;
}

function limiterAt(url: string, options: { leaseMs?: number; renewMs?: number } = {}): RedisLimiter {
  const limiter = openRedisLimiter({ url, pollMs: 10, ...options });
  cleanups.push(() => limiter.close());
  return limiter;
}

interface Child {
  ready: Promise<void>;
  /** Resolves when the child prints `line`. */
  printed(line: string): Promise<void>;
  outcome: Promise<Record<string, unknown>>;
  go(): void;
  kill(): Promise<void>;
}

/** Starts the limiter child with `order`. */
function startChild(order: Record<string, unknown>): Child {
  const proc = spawn(process.execPath, [CHILD, JSON.stringify(order)], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const waiting: Array<{ line: string; resolve: () => void }> = [];
  proc.stdout.on("data", (d) => {
    out += d;
    for (const w of waiting.splice(0)) {
      if (out.split("\n").includes(w.line)) w.resolve();
      else waiting.push(w);
    }
  });
  proc.stderr.on("data", (d) => {
    err += d;
  });
  const printed = (line: string) =>
    new Promise<void>((resolve, reject) => {
      if (out.split("\n").includes(line)) return resolve();
      waiting.push({ line, resolve });
      proc.once("close", (code) => reject(new Error(`limiter child exited ${code}: ${err}`)));
    });
  const outcome = new Promise<Record<string, unknown>>((resolve, reject) => {
    proc.on("close", (code, signal) => {
      if (code === 0) resolve(JSON.parse(out.trim().split("\n").at(-1)!));
      else reject(new Error(`limiter child exited ${code ?? signal}: ${err}`));
    });
  });
  outcome.catch(() => {});
  const kill = () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once("close", () => resolve());
      proc.kill("SIGKILL");
    });
  cleanups.push(kill);
  return { ready: printed("ready"), printed, outcome, go: () => proc.stdin.end("go\n"), kill };
}

if (servicesAnswer([await redisProblem()])) {
  describe("the provider limiter on Redis", () => {
    it("never lets several processes hold more slots of a provider together than its limit", async () => {
      const url = freshUrl();
      const keys = { active: `${new URL(url).searchParams.get("prefix")}:active`, peak: "" };
      keys.peak = `${keys.active}:peak`;
      const order = {
        url,
        provider: "search:tavily",
        limits: { concurrency: 3 },
        mode: "work",
        tasks: 12,
        parallel: 4,
        holdMs: 15,
        ...keys,
      };
      const children = [1, 2, 3, 4].map(() => startChild(order));
      await Promise.all(children.map((c) => c.ready));
      for (const child of children) child.go();
      const outcomes = await Promise.all(children.map((c) => c.outcome));
      expect(outcomes.flatMap((o) => o.grants as number[])).toHaveLength(48);
      const redis = new Redis(TEST_REDIS_URL);
      const peak = Number(await redis.get(keys.peak));
      await redis.quit();
      // 16 takers for 3 slots: the limit is reached and never passed.
      expect(peak).toBe(3);
      expect(await limiterAt(url).held("search:tavily")).toBe(0);
    }, 60_000);

    it("never takes more slots than the rate in any window of the server's clock", async () => {
      const url = freshUrl();
      const order = {
        url,
        provider: "search:openalex",
        limits: { concurrency: 50, ratePerSecond: 8 },
        mode: "work",
        tasks: 8,
        parallel: 8,
        holdMs: 1,
        active: `${new URL(url).searchParams.get("prefix")}:active`,
        peak: `${new URL(url).searchParams.get("prefix")}:peak`,
      };
      const children = [1, 2, 3].map(() => startChild(order));
      await Promise.all(children.map((c) => c.ready));
      for (const child of children) child.go();
      const grants = (await Promise.all(children.map((c) => c.outcome)))
        .flatMap((o) => o.grants as number[])
        .sort((a, b) => a - b);
      expect(grants).toHaveLength(24);
      // Any 9 grants in a row span at least a second: at most 8 in any second.
      for (let i = 0; i + 8 < grants.length; i++)
        expect(grants[i + 8]! - grants[i]!).toBeGreaterThanOrEqual(1000);
    }, 60_000);

    it("gives back the slots of a holder that was killed once their lease ends; a live holder keeps them", async () => {
      const url = freshUrl();
      const limits = { concurrency: 2 };
      const leaseMs = 1_000;
      const holder = startChild({
        url,
        provider: "model:openai",
        limits,
        leaseMs,
        renewMs: 200,
        mode: "hold",
        count: 2,
      });
      await holder.ready;
      holder.go();
      await holder.printed("held");
      const limiter = limiterAt(url, { leaseMs });
      // Renewed, the slots outlive several leases while their holder lives.
      for (let i = 0; i < 5; i++) {
        expect(await limiter.tryAcquire("model:openai", limits)).toBeNull();
        await new Promise((resolve) => setTimeout(resolve, leaseMs / 2));
      }
      expect(await limiter.held("model:openai")).toBe(2);
      await holder.kill();
      const recovered = await limiter.acquire("model:openai", limits, AbortSignal.timeout(15_000));
      expect(await limiter.held("model:openai")).toBeLessThanOrEqual(2);
      await recovered.release();
      const both = [
        await limiter.tryAcquire("model:openai", limits),
        await limiter.tryAcquire("model:openai", limits),
      ];
      expect(both.every((slot) => slot !== null)).toBe(true);
      expect(await limiter.tryAcquire("model:openai", limits)).toBeNull();
    }, 60_000);

    it("frees a released slot at once, takes nothing for a waiter that gave up, and frees its slots on close", async () => {
      const url = freshUrl();
      const limiter = limiterAt(url);
      const observer = limiterAt(url);
      const limits = { concurrency: 1 };
      const first = await limiter.acquire("p", limits);
      const gaveUp = new AbortController();
      const waiting = limiter.acquire("p", limits, gaveUp.signal);
      gaveUp.abort(new Error("no longer needed"));
      await expect(waiting).rejects.toThrow("no longer needed");
      expect(await observer.held("p")).toBe(1);
      await first.release();
      await first.release();
      expect(await observer.held("p")).toBe(0);
      expect(await limiter.tryAcquire("p", limits)).not.toBeNull();
      // Providers are counted apart.
      expect(await limiter.tryAcquire("q", limits)).not.toBeNull();
      expect(await observer.tryAcquire("p", limits)).toBeNull();
      await limiter.close();
      expect(await observer.held("p")).toBe(0);
      expect(await observer.held("q")).toBe(0);
    });

    it("applies its configured limits over what a caller asks for", async () => {
      const limiter = openRedisLimiter({
        url: freshUrl(),
        limitsOf: (provider, asked) => (provider === "model:openai" ? { concurrency: 1 } : asked),
      });
      cleanups.push(() => limiter.close());
      expect(await limiter.tryAcquire("model:openai", { concurrency: 5 })).not.toBeNull();
      expect(await limiter.tryAcquire("model:openai", { concurrency: 5 })).toBeNull();
      expect(await limiter.tryAcquire("searxng", { concurrency: 2 })).not.toBeNull();
      expect(await limiter.tryAcquire("searxng", { concurrency: 2 })).not.toBeNull();
    });
  });
}

describe("a provider limiter URL", () => {
  it("that does not answer is a STORE_ERROR naming the server without its password", async () => {
    const limiter = openRedisLimiter({ url: "redis://user:secret@127.0.0.1:9" });
    try {
      const error = await limiter.ready(500).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "STORE_ERROR" });
      expect((error as Error).message).toContain("redis://user:***@127.0.0.1:9");
      expect((error as Error).message).not.toContain("secret");
    } finally {
      await limiter.close();
    }
  });
});
