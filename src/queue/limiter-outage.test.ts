/**
 * A Redis outage under running research: the provider limiter's server (one this test starts on
 * a port of its own) is stopped while a minddr run is under way. Calls that need a slot wait and
 * try again (a LIMITER_UNAVAILABLE warning); when Redis is back within the bound the run
 * completes as an uninterrupted one would, and when it is not the run fails with STORE_ERROR.
 * In neither case does a strategy write a fallback (`*_FALLBACK`) for a call that was never made.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { KILLED_QUESTION } from "../../test/research/killed-run.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import type { DossierEvent } from "../core/events.ts";
import { limitModels } from "../runtime/limited-models.ts";
import { registryFromConfig } from "../runtime/models.ts";
import { openRedisLimiter, type RedisLimiter } from "./redis-limiter.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A free TCP port of this machine. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A redis-server of this test's own on `port`, that keeps nothing on disk. */
async function startRedis(port: number): Promise<ChildProcess> {
  const proc = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = "";
    proc.once("error", reject);
    proc.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("Ready to accept connections")) resolve();
    });
  });
  return proc;
}

async function stopRedis(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.kill("SIGKILL");
  await exited;
}

const hasRedisServer = await new Promise<boolean>((resolve) => {
  const probe = spawn("redis-server", ["--version"], { stdio: "ignore" });
  probe.once("error", () => resolve(false));
  probe.once("exit", (code) => resolve(code === 0));
});

const warnings = (events: readonly DossierEvent[]) =>
  events.flatMap((e) => (e.type === "warning" ? [(e as { code: string }).code] : []));

/**
 * Runs the minddr question against `world` under a limiter on a Redis of its own, which is
 * stopped once the model has answered 4 requests; `restartAfterMs` brings it back (null: never).
 */
async function researchThroughOutage(world: ResearchWorld, outageMs: number, restartAfterMs: number | null) {
  const port = await freePort();
  let redis = await startRedis(port);
  cleanups.push(() => stopRedis(redis));
  const limiter: RedisLimiter = openRedisLimiter({
    url: `redis://127.0.0.1:${port}`,
    pollMs: 5,
    outageMs,
    outageRetryMs: 50,
  });
  cleanups.push(() => limiter.close());
  let stopped: Promise<void> | null = null;
  const answered = () => Object.values(world.script.counts).reduce((a, b) => a + b, 0);
  const watcher = setInterval(() => {
    if (stopped || answered() < 4) return;
    stopped = stopRedis(redis).then(async () => {
      if (restartAfterMs === null) return;
      await new Promise((r) => setTimeout(r, restartAfterMs));
      redis = await startRedis(port);
    });
  }, 5);
  cleanups.push(() => clearInterval(watcher));
  const result = await world.research(
    { query: KILLED_QUESTION, strategy: "minddr", concurrency: 2 },
    { registry: limitModels(registryFromConfig(world.config), { limiter }), limiter },
  );
  clearInterval(watcher);
  await stopped;
  return { result, stoppedAt: stopped !== null };
}

if (hasRedisServer) {
  describe("a Redis outage under a running research run", () => {
    it("waits for the limiter and completes with no fallback when Redis returns within the bound", async () => {
      const world = await startResearchWorld({
        subtasks: 3,
        latencyMs: 20,
        expectCalls: {
          planner: 1,
          "search-step": 3,
          reader: 3,
          "sub-report": 3,
          outline: 1,
          section: 4,
          coherence: 1,
        },
      });
      cleanups.push(() => world.close());
      const { result, stoppedAt } = await researchThroughOutage(world, 15_000, 1_500);
      expect(stoppedAt, "Redis was stopped mid-run").toBe(true);
      const codes = warnings(result.events);
      expect(codes).toContain("LIMITER_UNAVAILABLE");
      expect(codes.filter((c) => c.endsWith("_FALLBACK"))).toEqual([]);
      expect(result.record.status).toBe("completed");
    }, 30_000);

    it("fails the run with STORE_ERROR, writing no fallback, when Redis stays away past the bound", async () => {
      const world = await startResearchWorld({
        subtasks: 3,
        latencyMs: 20,
        expectCalls: {
          planner: [0, 1],
          "search-step": [0, 3],
          reader: [0, 3],
          "sub-report": [0, 3],
          outline: [0, 1],
          section: [0, 4],
          coherence: [0, 1],
        },
      });
      cleanups.push(() => world.close());
      const { result, stoppedAt } = await researchThroughOutage(world, 2_000, null);
      expect(stoppedAt, "Redis was stopped mid-run").toBe(true);
      const codes = warnings(result.events);
      expect(codes).toContain("LIMITER_UNAVAILABLE");
      expect(codes.filter((c) => c.endsWith("_FALLBACK"))).toEqual([]);
      expect(result.record.status).toBe("failed");
      expect(result.record.error?.code).toBe("STORE_ERROR");
      expect(result.record.error?.message).toMatch(/provider limiter .* did not answer/);
      expect(result.record.stopReason).toBe("error: STORE_ERROR");
      // Nothing was written after the model calls stopped: no section, no report.
      expect(result.events.filter((e) => e.type === "section-written")).toEqual([]);
    }, 30_000);
  });
} else {
  describe.skip("SKIPPED: redis-server is not installed", () => {
    it("needs redis-server", () => {});
  });
}
