/**
 * Plan review in queue mode, on real Redis and PostgreSQL (the offline strategy over a notes
 * folder: no model): a queued run with `reviewPlan` stops after its plan on a worker, whose job
 * then ends — no worker holds a job while the run awaits review. An enqueuer started afresh (a
 * restart) finds the run awaiting review in the store; its answer enqueues the resume, and a
 * worker runs exactly the edited plan. A rejection enqueues nothing. Skipped with a notice when a
 * service does not answer.
 */

import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import {
  postgresProblem,
  redisProblem,
  servicesAnswer,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
} from "../../test/services.ts";
import type { DossierEvent, EventOf } from "../core/events.ts";
import { createDossier, type Dossier } from "../runtime/dossier.ts";
import { queuedResearch } from "./queued-research.ts";
import { openRunQueue, RUN_QUEUE } from "./run-queue.ts";
import { startRunWorker } from "./run-worker.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const QUESTION = "How do heat pumps perform in cold climates?";
const ofType = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);
const facetsSearched = (events: DossierEvent[]) =>
  ofType(events, "tool-start")
    .map((e) => (e.args as { query?: string }).query ?? "")
    .filter((q) => q !== QUESTION)
    .map((q) => q.slice(QUESTION.length + 1));

function setup() {
  const schema = `dossier_review_${randomBytes(5).toString("hex")}`;
  const databaseUrl = `${TEST_DATABASE_URL}?schema=${schema}`;
  const url = `${TEST_REDIS_URL}?prefix=${schema}`;
  const home = mkdtempSync(join(tmpdir(), "dossier-review-queue-"));
  mkdirSync(join(home, "notes"));
  writeFileSync(
    join(home, "notes", "defrost.md"),
    "# Defrost\n\nHeat pumps in cold climates run defrost cycles; defrost cycles cost energy.\nDefrost controls cut defrost losses of heat pumps.\n",
  );
  writeFileSync(
    join(home, "notes", "capacity.md"),
    "# Capacity\n\nHeat pump capacity drops in cold climates; capacity ratings compare heat pumps.\nDefrost cycles reduce capacity briefly.\n",
  );
  const dossierAt = (): Dossier => {
    const dossier = createDossier({
      env: { DOSSIER_HOME: join(home, ".dossier") },
      cwd: home,
      config: { databaseUrl },
    });
    cleanups.push(() => dossier.close());
    return dossier;
  };
  const queue = openRunQueue({ url, backoffMs: 50 });
  cleanups.push(async () => {
    await queue.close();
    const raw = new Queue(RUN_QUEUE, { connection: queue.target.connection, prefix: queue.target.prefix });
    await raw.obliterate({ force: true });
    await raw.close();
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
    rmSync(home, { recursive: true, force: true });
  });
  // The worker's own Dossier: another process's, over the same store.
  const workerDossier = dossierAt();
  const worker = startRunWorker({ dossier: workerDossier, url, lockDurationMs: 5_000, sweepMs: 0 });
  cleanups.push(() => worker.close(true));
  return { dossierAt, queue, worker, home };
}

if (servicesAnswer([await postgresProblem(), await redisProblem()])) {
  describe("plan review through the run queue", () => {
    it("holds no job while awaiting review; an answer after a restart enqueues the resume of exactly the edited plan", async () => {
      const { dossierAt, queue, worker, home } = setup();
      await worker.ready();
      const first = dossierAt();
      const queued = queuedResearch(first, queue, { pollMs: 50, followMs: 200, cwd: home });
      const paused = await queued.research(QUESTION, { docs: "notes", reviewPlan: true }).done;
      expect(paused.status).toBe("awaiting-review");
      const plan = paused.plan!;
      expect(plan.items.length).toBeGreaterThanOrEqual(1);
      // The worker's job ended with the pause: nothing in the queue, nothing running on the worker.
      expect((await queue.liveRuns()).has(paused.runId)).toBe(false);
      expect(await queue.jobState(paused.runId)).toBe("completed");
      expect(worker.running()).toEqual([]);
      await first.close();

      // A restart of the enqueuer: the run waits in the store.
      const again = dossierAt();
      const enqueuer = queuedResearch(again, queue, { pollMs: 50, followMs: 200, cwd: home });
      expect((await again.runs.get(paused.runId)).status).toBe("awaiting-review");
      const edited = { items: [{ id: plan.items[0]!.id, title: "capacity" }, { title: "controls" }] };
      const answered = await enqueuer.runs.review(paused.runId, { action: "edit", plan: edited });
      const done = await answered.handle!.done;
      expect(done.status).toBe("completed");
      const events = await again.runs.events(paused.runId);
      expect(facetsSearched(events)).toEqual(["capacity", "controls"]);
      expect(ofType(events, "plan-reviewed")).toHaveLength(1);
      expect(ofType(events, "run-end").map((e) => e.status)).toEqual(["awaiting-review", "completed"]);
    }, 60_000);

    it("a rejection ends the run cancelled and enqueues nothing", async () => {
      const { dossierAt, queue, worker, home } = setup();
      await worker.ready();
      const dossier = dossierAt();
      const queued = queuedResearch(dossier, queue, { pollMs: 50, followMs: 200, cwd: home });
      const paused = await queued.research(QUESTION, { docs: "notes", reviewPlan: true }).done;
      const before = await queue.status();
      const answered = await queued.runs.review(paused.runId, { action: "reject", reason: "wrong focus" });
      expect(answered.handle).toBeNull();
      expect(answered.record).toMatchObject({ status: "cancelled", stopReason: "plan-rejected" });
      const after = await queue.status();
      expect(after.waiting + after.active).toBe(before.waiting + before.active);
      expect((await queue.liveRuns()).has(paused.runId)).toBe(false);
    }, 60_000);
  });
}
