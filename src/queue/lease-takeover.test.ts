/**
 * The takeover bound, from the lease fields (never from timings): a running run is its owner's
 * until its heartbeat plus the owner's recorded lease; the sweeper hands it on at its first
 * lease pass after that — a pass every heartbeat — whatever the queue still holds for it, and a
 * worker then takes it over and completes it. So a worker that dies is replaced within its
 * lease (`--lock-ms`) + one heartbeat. A run whose lease holds is left to its owner: its job
 * ends at once on a worker and the run is untouched. Real PostgreSQL and a redis-server of the
 * test's own; skipped with a notice when a service does not answer (failed with
 * DOSSIER_REQUIRE_SERVICES=1).
 */

import { afterEach, describe, expect, it } from "vitest";
import { gate, gatedQueueWorld, REQUEST } from "../../test/queue/gated-world.ts";
import { redisServerProblem, startOwnRedis } from "../../test/queue/own-redis.ts";
import { instantClock } from "../../test/scripted/clocks.ts";
import { postgresProblem, redisProblem, servicesAnswer } from "../../test/services.ts";
import { leaseEnd, runHeartbeatMs } from "../runtime/run-liveness.ts";
import { takeoverJobId } from "./reconcile.ts";
import { startSweeper, sweepLeases } from "./sweeper.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An owner on another host (never judged by its pid), leasing its runs for `leaseMs`. */
const elsewhere = (leaseMs: number) => ({
  host: "another-host.invalid",
  pid: 4242,
  startedAt: "2026-01-01T00:00:00.000Z",
  leaseMs,
});

async function world() {
  const redis = await startOwnRedis();
  cleanups.push(() => redis.stop());
  return gatedQueueWorld(redis.url("lease"), cleanups);
}

if (servicesAnswer([await postgresProblem(), await redisProblem(), await redisServerProblem()])) {
  describe("the lease of a running run", () => {
    it("is handed on at the first lease pass after heartbeat + lease, though its job is still queued", async () => {
      const { dossier, queue, startWorker } = await world();
      gate.open = true;
      const beatAt = Date.now() - 60_000;
      const runId = "20260101-000000-leased";
      await dossier.store.runs.create({
        id: runId,
        query: "Who takes over a run whose lease expired?",
        strategy: "gated",
        options: { ...REQUEST },
        createdAt: new Date(beatAt).toISOString(),
        owner: elsewhere(6_000),
      });
      // Its job is still in the queue (a dead worker's job stays active until found stalled).
      await queue.enqueue({
        kind: "research",
        runId,
        question: "Who takes over a run whose lease expired?",
        options: { ...REQUEST },
        enqueuedAt: new Date(beatAt).toISOString(),
      });
      expect((await queue.liveRuns()).has(runId)).toBe(true);
      const record = (await dossier.store.runs.get(runId))!;
      expect(record.owner?.leaseMs).toBe(6_000);
      expect(record.heartbeatAt).toBe(new Date(beatAt).toISOString());
      const end = leaseEnd(record)!;
      expect(end).toBe(beatAt + 6_000);

      const sweep = (at: number) =>
        sweepLeases({ queue, store: dossier.store, clock: instantClock(at), staleAfterMs: 30_000 });
      // At the lease's end it still holds; a millisecond later the run is handed on.
      expect(await sweep(end)).toEqual([]);
      expect(await sweep(end + 1)).toEqual([{ runId, action: "taken-over", jobId: takeoverJobId(record) }]);
      // However many sweepers see it: one takeover job.
      await sweep(end + 2);
      expect((await queue.status()).waiting).toBe(2);

      // A sweeper looks at leases every heartbeat: the bound is the lease + one heartbeat.
      const sweeper = startSweeper({
        queue,
        store: dossier.store,
        clock: dossier.clock,
        staleAfterMs: 30_000,
      });
      expect(sweeper.periods.leasesMs).toBe(runHeartbeatMs());
      await sweeper.stop();

      const worker = startWorker({ concurrency: 2 });
      await worker.ready();
      await expect
        .poll(async () => (await dossier.store.runs.get(runId))?.status, { timeout: 15_000 })
        .toBe("completed");
      const events = await dossier.store.events.list(runId);
      expect(events.filter((e) => e.type === "run-resume")).toEqual([
        expect.objectContaining({ previousStatus: "interrupted" }),
      ]);
      expect(gate.attempts.get("Who takes over a run whose lease expired?")).toBe(1);
    }, 30_000);

    it("is left to its owner while it holds: the run's job ends at once on a worker, the run untouched", async () => {
      const { dossier, queue, startWorker } = await world();
      const runId = "20260101-000000-held";
      const createdAt = new Date().toISOString();
      await dossier.store.runs.create({
        id: runId,
        query: "Who keeps a run whose lease holds?",
        strategy: "gated",
        options: { ...REQUEST },
        createdAt,
        owner: elsewhere(600_000),
      });
      const jobId = await queue.enqueue({
        kind: "research",
        runId,
        question: "Who keeps a run whose lease holds?",
        options: { ...REQUEST },
        enqueuedAt: createdAt,
      });
      const worker = startWorker();
      await worker.ready();
      const result = await queue.finished(jobId);
      expect(result).toMatchObject({ runId, status: "running", resumed: true });
      expect(worker.running()).toEqual([]);
      expect(await dossier.store.runs.get(runId)).toMatchObject({
        status: "running",
        owner: elsewhere(600_000),
        heartbeatAt: createdAt,
      });
      expect(await dossier.store.events.list(runId)).toEqual([]);
    }, 30_000);
  });
}
