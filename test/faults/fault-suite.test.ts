/**
 * The fault suite of the run queue, one batch through every fault in turn: `dossier batch` of 8
 * minddr questions on a redis-server of the test's own, executed by 2 `dossier worker`
 * processes (2 runs at once each) into PostgreSQL, against a loopback model
 * server that records every request and fake search and web servers. While the batch runs:
 * (a) worker A is SIGKILLed with model requests in flight (a supervisor starts it again);
 * (b) Redis is down for 20 s, then back, empty (no persistence: every job is lost);
 * (c) the processes' PostgreSQL connections are terminated three times (pg_terminate_backend);
 * (d) the queue is flushed (FLUSHALL) with runs queued and running.
 * Then: the batch command exits by itself; every run ended `completed` with no fallback written,
 * or `failed` with an infrastructure reason; none is left queued, running or interrupted; no
 * answered model call was paid again; the model calls the runs report (answered ones, and those
 * lost in flight at the kill, as a resume counts them) are exactly the chat requests the model
 * server received; the killed worker's runs were taken over and resumed from their journals.
 * With DOSSIER_FAULT_FIGURES=1 it prints its figures (runs, takeover times, lost and repaid
 * calls). Real PostgreSQL and Redis; skipped with a notice when a service does not answer
 * (failed with DOSSIER_REQUIRE_SERVICES=1).
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { DossierEvent } from "../../src/core/events.ts";
import type { RunRecord } from "../../src/core/run.ts";
import { redisServerProblem } from "../queue/own-redis.ts";
import { postgresProblem, redisProblem, servicesAnswer } from "../services.ts";
import { until } from "./dossier-process.ts";
import { startFaultWorld } from "./fault-world.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const RUNS = 8;
/**
 * The workers' lease (`--lock-ms`). A killed worker is found gone by its pid (one host) at the
 * next lease pass, so the lease is not what this suite waits for (the lease bound is tested from
 * the lease fields in src/queue/lease-takeover.test.ts); it is long enough that a live worker
 * starved of CPU on a loaded machine never looks dead.
 */
const LOCK_MS = 20_000;
const REDIS_DOWN_MS = 20_000;
const WORKER_ARGS = ["--concurrency", "2", "--lock-ms", String(LOCK_MS), "--sweep-ms", "1000"];
const INFRASTRUCTURE = new Set(["STORE_ERROR", "QUEUE_ERROR"]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Answered model calls of a run paid a second time: a live answer under a key answered live before. */
function repaid(events: readonly DossierEvent[]): number {
  const seen = new Set<string>();
  let again = 0;
  for (const e of events) {
    if (e.type !== "llm-end" || !e.ok || e.replayed) continue;
    if (seen.has(e.key)) again++;
    seen.add(e.key);
  }
  return again;
}

if (servicesAnswer([await postgresProblem(), await redisProblem(), await redisServerProblem()])) {
  describe("a batch through worker processes under faults", () => {
    it("ends every run, none silently degraded, with every model call the server received reported", async () => {
      const started = Date.now();
      // A freeze holds every new model request unanswered (to kill a worker with requests in
      // flight); the requests held are counted by the key of the worker that sent them.
      let thaw: (() => void) | null = null;
      let frozen: Promise<void> | null = null;
      const held = new Map<string, number>();
      const fault = await startFaultWorld(
        {
          subtasks: 3,
          latencyMs: 600,
          hold: async (request) => {
            if (!frozen) return;
            const key = request.headers.authorization ?? "";
            held.set(key, (held.get(key) ?? 0) + 1);
            await frozen;
          },
        },
        cleanups,
      );
      const figures: string[] = [];
      const { dossier } = fault;
      const file = join(fault.world.home, "questions.jsonl");
      writeFileSync(
        file,
        `${Array.from({ length: RUNS }, (_, i) => JSON.stringify({ id: `q${i + 1}`, prompt: `How is topic ${i + 1} adoption changing?` })).join("\n")}\n`,
      );
      const a = fault.startWorker(WORKER_ARGS, "sk-worker-a");
      const b = fault.startWorker(WORKER_ARGS, "sk-worker-b");
      await until(async () => (await fault.queue.status()).workers.length >= 2, 90_000, "two workers");
      const batch = fault.startCli([
        "batch",
        file,
        "--strategy",
        "minddr",
        "--queue",
        fault.queueUrl,
        "--concurrency",
        String(RUNS),
        "--out",
        "articles.jsonl",
        "--json",
      ]);
      const runsNow = () => dossier.store.runs.list({ limit: 100 });

      // (a) Worker A is killed while its runs have model requests in flight.
      const victims = await until(
        async () => {
          const mine = (await runsNow()).filter((r) => r.status === "running" && r.owner?.pid === a.pid);
          if (mine.length < 2) return false;
          const journals = await Promise.all(mine.map((r) => dossier.store.journal(r.id).entries()));
          return journals.every((j) => j.size >= 2) && mine.map((r) => r.id);
        },
        90_000,
        "worker A to have two runs under way",
      );
      frozen = new Promise<void>((resolve) => {
        thaw = resolve;
      });
      // Every model call worker A has started (llm-start without llm-end) waits at the server.
      const startedByA = async () => {
        let open = 0;
        for (const id of victims) {
          const ended = new Set<string>();
          const started = new Set<string>();
          for (const e of await dossier.store.events.list(id, { types: ["llm-start", "llm-end"] })) {
            if (e.type === "llm-start") started.add(e.callId);
            else if (e.type === "llm-end") ended.add(e.callId);
          }
          open += [...started].filter((c) => !ended.has(c)).length;
        }
        return open;
      };
      let agreedSince: number | null = null;
      await until(
        async () => {
          const agree = (await startedByA()) === (held.get("Bearer sk-worker-a") ?? 0);
          agreedSince = agree ? (agreedSince ?? Date.now()) : null;
          return agreedSince !== null && Date.now() - agreedSince > 500;
        },
        30_000,
        "every call worker A started to reach the model server",
      );
      const heldFromA = held.get("Bearer sk-worker-a") ?? 0;
      a.child.kill("SIGKILL");
      const killedAt = Date.now();
      await a.exited;
      const a2 = fault.startWorker(WORKER_ARGS, "sk-worker-a2"); // as a supervisor would
      frozen = null;
      (thaw as (() => void) | null)?.();
      const resumedAt = await until(
        async () => {
          const at: number[] = [];
          for (const id of victims) {
            const resume = (await dossier.store.events.list(id, { types: ["run-resume"] }))[0];
            if (!resume) return false;
            at.push(Date.parse(resume.ts));
          }
          return at;
        },
        90_000,
        "the killed worker's runs to be taken over",
      );
      const swept = [b, a2]
        .flatMap((w) => w.notes())
        .filter((n) => n.type === "swept" && n.action === "taken-over" && victims.includes(String(n.runId)));
      const detectedMs = swept.length
        ? Math.min(...swept.map((n) => Date.parse(String(n.at)))) - killedAt
        : Number.NaN;
      figures.push(
        `(a) worker killed with ${victims.length} runs and ${heldFromA} model requests in flight; handed on ${detectedMs} ms after the kill (lease ${LOCK_MS} ms, a run of this host's dead process at the next lease pass); resumed ${resumedAt.map((t) => t - killedAt).join(", ")} ms after it (when a worker had a free slot: the restarted one)`,
      );
      await until(async () => (await fault.queue.status()).workers.length >= 2, 90_000, "worker A again");

      // (b) Redis is down for 20 s, then back without its data.
      const beforeOutage = fault.modelRequests();
      await fault.redis.stop();
      const downAt = Date.now();
      await sleep(REDIS_DOWN_MS);
      await fault.redis.start();
      figures.push(
        `(b) Redis down ${Date.now() - downAt} ms; ${fault.modelRequests() - beforeOutage} model requests made meanwhile`,
      );

      // (c) The processes' PostgreSQL connections are terminated three times, as runs go on.
      const terminated: number[] = [];
      for (let i = 0; i < 3; i++) {
        const seen = fault.modelRequests();
        await until(() => fault.modelRequests() > seen, 60_000, "runs making model calls");
        terminated.push(await fault.terminateBackends());
        await sleep(1_000);
      }
      expect(
        terminated.every((n) => n > 0),
        `connections terminated: ${terminated}`,
      ).toBe(true);
      figures.push(`(c) PostgreSQL connections terminated: ${terminated.join(", ")}`);

      // (d) The queue is flushed while runs are under way (and queued, when some still are).
      const atFlush = await until(
        async () => {
          const runs = await runsNow();
          return runs.some((r) => r.status === "running") && runs;
        },
        60_000,
        "a run under way",
      );
      expect(await fault.redis.command("FLUSHALL")).toMatch(/^\+OK/);
      const flushedAt = Date.now();
      const statusAtFlush = (s: string) => atFlush.filter((r) => r.status === s).length;

      // The batch ends by itself.
      const exit = await Promise.race([batch.exited, sleep(180_000).then(() => null)]);
      expect(exit, `the batch did not exit: ${batch.stderr().slice(-2_000)}`).not.toBeNull();
      figures.push(
        `(d) FLUSHALL with ${statusAtFlush("queued")} run(s) queued, ${statusAtFlush("running")} running, ${statusAtFlush("completed")} completed; the batch exited ${Date.now() - flushedAt} ms later`,
      );

      const runs: RunRecord[] = await runsNow();
      expect(runs).toHaveLength(RUNS);
      const summary = JSON.parse(batch.stdout().trim().split("\n").at(-1)!) as {
        done: number;
        failed: number;
      };
      for (const run of runs) {
        expect(["completed", "failed"], `run ${run.id} ended ${run.status} (${run.stopReason})`).toContain(
          run.status,
        );
        if (run.status === "failed") expect(INFRASTRUCTURE.has(run.error?.code ?? "")).toBe(true);
        expect(run.owner?.leaseMs, "runs leased for --lock-ms").toBe(LOCK_MS);
      }
      const completed = runs.filter((r) => r.status === "completed").length;
      expect(summary).toMatchObject({ done: completed, failed: RUNS - completed });
      expect(exit!.code).toBe(completed === RUNS ? 0 : 1);

      const logs = await Promise.all(runs.map((r) => dossier.store.events.list(r.id)));
      let lost = 0;
      let again = 0;
      let limiterWaits = 0;
      for (const [i, events] of logs.entries()) {
        expect(
          events.map((e) => e.seq),
          "a contiguous event log",
        ).toEqual(events.map((_, j) => j + 1));
        const codes = events.flatMap((e) => (e.type === "warning" ? [(e as { code: string }).code] : []));
        expect(
          codes.filter((c) => c.endsWith("_FALLBACK")),
          `fallbacks of ${runs[i]!.id}`,
        ).toEqual([]);
        limiterWaits += codes.filter((c) => c === "LIMITER_UNAVAILABLE").length;
        for (const e of events) if (e.type === "run-resume") lost += e.lostCalls ?? 0;
        if (process.env.DOSSIER_FAULT_FIGURES === "1")
          figures.push(
            `run ${runs[i]!.id}: ${runs[i]!.status}, ${runs[i]!.usage?.llmCalls} model calls, ${events.filter((e) => e.type === "run-resume").length} resume(s)`,
          );
        again += repaid(events);
      }
      for (const id of victims) {
        const events = logs[runs.findIndex((r) => r.id === id)]!;
        expect(events.find((e) => e.type === "run-resume")).toMatchObject({ previousStatus: "interrupted" });
      }
      expect(lost, "the calls worker A had in flight, counted lost by the resumes").toBe(heldFromA);
      expect(again, "answered model calls paid again").toBe(0);
      const reported = runs.reduce((sum, r) => sum + (r.usage?.llmCalls ?? 0), 0);
      const received = fault.modelRequests();
      expect(reported, "model calls reported = chat requests the model server received").toBe(received);

      figures.push(
        `runs: ${runs.length}, ${completed} completed, ${runs.length - completed} failed; model calls: ${received} received = ${reported} reported, ${lost} of them lost in flight (counted at their estimate), ${again} repaid; ${limiterWaits} limiter waits (LIMITER_UNAVAILABLE); suite ${Date.now() - started} ms`,
      );
      if (process.env.DOSSIER_FAULT_FIGURES === "1")
        process.stderr.write(`${figures.map((f) => `[faults] ${f}`).join("\n")}\n`);
      await Promise.all([b.stop("SIGTERM"), a2.stop("SIGTERM")]);
    }, 300_000);
  });
}
