/**
 * Faults of the queue, on real PostgreSQL and Redis (a redis-server of the test's own where it
 * is flushed or stopped): a batch whose jobs Redis lost still ends with every run ended, none
 * left queued; a worker's sweeper enqueues an orphaned queued run again (once, however many
 * sweepers) and hands on a running run whose owner died; with Redis stopped the API refuses a
 * run within 2 s (503, Retry-After) and stores nothing; one Idempotency-Key creates one run; a
 * cancelled run resumed over the API in queue mode is taken up by a worker and completes.
 * Skipped with a notice when a service does not answer (failed with DOSSIER_REQUIRE_SERVICES=1).
 */

import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gate, gatedQueueWorld, REQUEST } from "../../test/queue/gated-world.ts";
import { type OwnRedis, redisServerProblem, startOwnRedis } from "../../test/queue/own-redis.ts";
import { postgresProblem, redisProblem, servicesAnswer } from "../../test/services.ts";
import { runBatch } from "../runtime/batch.ts";
import { createServerApp } from "../server/app.ts";
import { requeueJobId } from "./reconcile.ts";
import { sweepOnce } from "./sweeper.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const setup = (redisUrl: string) => gatedQueueWorld(redisUrl, cleanups);

async function ownRedis(): Promise<OwnRedis> {
  const redis = await startOwnRedis();
  cleanups.push(() => redis.stop());
  return redis;
}

if (servicesAnswer([await postgresProblem(), await redisProblem(), await redisServerProblem()])) {
  describe("runs whose jobs the queue lost", () => {
    it("a batch ends when Redis is flushed mid-batch: every run ends completed, none left queued", async () => {
      const redis = await ownRedis();
      const { home, dossier, queued, startWorker } = await setup(redis.url("lost"));
      gate.open = false;
      const worker = startWorker({ concurrency: 2, sweepMs: 300 });
      await worker.ready();
      const questions = [1, 2, 3, 4].map((i) => ({ id: i, prompt: `What happened to lost job ${i}?` }));
      const batch = runBatch({
        questions,
        out: join(home, "articles.jsonl"),
        dossier: queued,
        concurrency: 4,
        research: REQUEST,
      });
      // Two runs on the worker, two queued: then every job is lost.
      await expect
        .poll(async () => (await dossier.runs.list({ status: "running" })).length, { timeout: 10_000 })
        .toBe(2);
      await expect
        .poll(async () => (await dossier.runs.list({ status: "queued" })).length, { timeout: 10_000 })
        .toBe(2);
      expect(await redis.command("FLUSHALL")).toMatch(/^\+OK/);
      const flushedAt = Date.now();
      gate.open = true;
      const result = await batch;
      const tookMs = Date.now() - flushedAt;
      expect(result.progress).toMatchObject({ done: 4, failed: 0, running: 0 });
      const runs = await dossier.runs.list();
      expect(runs.map((r) => r.status)).toEqual(["completed", "completed", "completed", "completed"]);
      // Each run ran once: the lost queued ones were enqueued again, the running ones not restarted.
      for (const q of questions) expect(gate.attempts.get(q.prompt)).toBe(1);
      process.stderr.write(`[lost-jobs] batch of 4 ended ${tookMs} ms after FLUSHALL\n`);
      expect(tookMs).toBeLessThan(10_000);
    }, 30_000);

    it("the sweeper enqueues an orphaned queued run once, however many sweep, and a worker completes it", async () => {
      const redis = await ownRedis();
      const { dossier, queue, startWorker } = await setup(redis.url("orphan"));
      gate.open = true;
      const createdAt = new Date(Date.now() - 60_000).toISOString();
      // A run the store records as queued whose job never reached the queue.
      await dossier.store.runs.create({
        id: "20260101-000000-orphan",
        query: "Who sweeps an orphaned run?",
        strategy: "gated",
        options: { ...REQUEST },
        createdAt,
        queued: true,
      });
      const record = (await dossier.store.runs.get("20260101-000000-orphan"))!;
      const sweep = () =>
        sweepOnce({
          queue,
          store: dossier.store,
          clock: dossier.clock,
          staleAfterMs: 30_000,
          graceMs: 2_000,
        });
      // Three sweepers at once: one job between them.
      const notes = (await Promise.all([sweep(), sweep(), sweep()])).flat();
      expect(notes.length).toBeGreaterThanOrEqual(1);
      for (const note of notes)
        expect(note).toEqual({ runId: record.id, action: "requeued", jobId: requeueJobId(record) });
      expect(await queue.status()).toMatchObject({ waiting: 1, active: 0 });
      expect(await sweep()).toEqual([]);
      const before = Date.now();
      startWorker();
      await expect
        .poll(async () => (await dossier.store.runs.get(record.id))?.status, { timeout: 10_000 })
        .toBe("completed");
      process.stderr.write(`[lost-jobs] orphan completed ${Date.now() - before} ms after a worker started\n`);
      expect(await dossier.store.runs.get(record.id)).toMatchObject({ createdAt });
    }, 30_000);

    it("a worker's sweeper hands on a running run whose owner died and whose job is gone", async () => {
      const redis = await ownRedis();
      const { dossier, queued, startWorker } = await setup(redis.url("takeover"));
      gate.open = true;
      const handle = queued.research("Who takes over a run whose worker died?", REQUEST);
      await handle.enqueued;
      // The run recorded as running under a process of this host that has ended; its job lost.
      const dead = spawnSync(process.execPath, ["-e", "process.pid"]).pid!;
      const startedAt = new Date(Date.now() - 5_000).toISOString();
      await dossier.store.runs.create({
        id: handle.runId,
        query: "Who takes over a run whose worker died?",
        strategy: "gated",
        options: { ...REQUEST },
        createdAt: startedAt,
        owner: { host: hostname(), pid: dead, startedAt },
      });
      expect(await redis.command("FLUSHALL")).toMatch(/^\+OK/);
      const before = Date.now();
      startWorker({ sweepMs: 300 });
      const result = await handle.done;
      process.stderr.write(
        `[lost-jobs] dead owner's run completed ${Date.now() - before} ms after a sweeping worker started\n`,
      );
      expect(result).toMatchObject({ status: "completed" });
      const events = await dossier.store.events.list(handle.runId);
      expect(events.find((e) => e.type === "run-resume")).toMatchObject({ previousStatus: "interrupted" });
    }, 30_000);
  });

  describe("the API while a service is away", () => {
    it("answers POST /v1/runs 503 with Retry-After at the service guard's deadline while Redis is stopped, storing nothing", async () => {
      const redis = await ownRedis();
      const { dossier, queued } = await setup(redis.url("down"));
      const server = createServerApp({ dossier, token: null, queued });
      cleanups.push(() => server.close());
      await redis.stop();
      const started = Date.now();
      const response = await server.app.request("/v1/runs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ question: "Is a run created while Redis is down?", ...REQUEST }),
      });
      const tookMs = Date.now() - started;
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(await response.json()).toMatchObject({ error: { code: "SERVICE_UNAVAILABLE" } });
      // The guard answers at SERVICE_ANSWER_MS (1.5 s); the bound here only has to tell that from
      // the 28 s a request once blocked, with room for a loaded machine.
      expect(tookMs).toBeLessThan(10_000);
      expect(await dossier.runs.list()).toEqual([]);
      const workersStarted = Date.now();
      const workers = await server.app.request("/v1/workers");
      const workersMs = Date.now() - workersStarted;
      expect(workers.status).toBe(503);
      expect(workersMs).toBeLessThan(10_000);
      process.stderr.write(
        `[lost-jobs] 503 in ${tookMs} ms (POST /v1/runs), ${workersMs} ms (GET /v1/workers)\n`,
      );
      // Back again: the same request is accepted.
      await redis.start();
      const accepted = await server.app.request("/v1/runs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ question: "Is a run created once Redis is back?", ...REQUEST }),
      });
      expect(accepted.status).toBe(201);
      expect((await dossier.runs.list()).map((r) => r.status)).toEqual(["queued"]);
    }, 30_000);

    it("creates one run for one Idempotency-Key, at once or later; another request under it is 409", async () => {
      const redis = await ownRedis();
      const { dossier, queued } = await setup(redis.url("idem"));
      const server = createServerApp({ dossier, token: null, queued });
      cleanups.push(() => server.close());
      const post = (question: string, key: string) =>
        server.app.request("/v1/runs", {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": key },
          body: JSON.stringify({ question, ...REQUEST }),
        });
      const question = "Is a retried request one run?";
      const [a, b] = await Promise.all([post(question, "retry-1"), post(question, "retry-1")]);
      const c = await post(question, "retry-1");
      expect([a.status, b.status].sort()).toEqual([200, 201]);
      expect(c.status).toBe(200);
      const ids = await Promise.all(
        [a, b, c].map(async (r) => ((await r.json()) as { run: { id: string } }).run.id),
      );
      expect(new Set(ids).size).toBe(1);
      expect(await dossier.runs.list()).toHaveLength(1);
      expect((await queued.status()).waiting).toBe(1);
      expect((await post("Another question", "retry-1")).status).toBe(409);
      expect((await post(question, "retry-2")).status).toBe(201);
      expect(await dossier.runs.list()).toHaveLength(2);
    }, 30_000);
  });

  describe("resume in queue mode", () => {
    it("takes up a cancelled run resumed over the API, as in embedded mode: it completes", async () => {
      const redis = await ownRedis();
      const { dossier, queued, startWorker } = await setup(redis.url("resume"));
      gate.open = false;
      startWorker();
      const server = createServerApp({ dossier, token: null, queued });
      cleanups.push(() => server.close());
      const question = "Is a cancelled run resumed by a worker?";
      const created = await server.app.request("/v1/runs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ question, ...REQUEST }),
      });
      const { run } = (await created.json()) as { run: { id: string } };
      await expect
        .poll(async () => (await dossier.store.runs.get(run.id))?.status, { timeout: 10_000 })
        .toBe("running");
      expect((await server.app.request(`/v1/runs/${run.id}/cancel`, { method: "POST" })).status).toBe(202);
      await expect
        .poll(async () => (await dossier.store.runs.get(run.id))?.status, { timeout: 10_000 })
        .toBe("cancelled");
      gate.open = true;
      // The server follows its queued handle, which learns of the end a moment after the store
      // records it (the job's completion event, or its next reading of the store): until then a
      // resume is refused as for a run still running.
      let resumed = await server.app.request(`/v1/runs/${run.id}/resume`, { method: "POST" });
      for (let i = 0; i < 20 && resumed.status === 409; i++) {
        expect(await resumed.text()).toMatch(/is running; it can be resumed once it has ended/);
        await new Promise((resolve) => setTimeout(resolve, 50));
        resumed = await server.app.request(`/v1/runs/${run.id}/resume`, { method: "POST" });
      }
      expect(resumed.status).toBe(202);
      await expect
        .poll(async () => (await dossier.store.runs.get(run.id))?.status, { timeout: 10_000 })
        .toBe("completed");
      const events = await dossier.store.events.list(run.id);
      expect(events.find((e) => e.type === "run-resume")).toMatchObject({ previousStatus: "cancelled" });
      expect(events.at(-1)).toMatchObject({ type: "run-end", status: "completed" });
      expect(gate.attempts.get(question)).toBe(2);
      // A completed run is not resumed: 409, as in embedded mode.
      expect((await server.app.request(`/v1/runs/${run.id}/resume`, { method: "POST" })).status).toBe(409);
    }, 30_000);
  });
}
