/**
 * Ctrl-C in `dossier batch` on the queue, with real processes: a batch of three minddr
 * questions, one running on a `dossier worker` process that is then frozen (SIGSTOP, as a worker
 * on a machine that stopped answering), two queued. SIGINT to the batch: the queued runs are
 * cancelled at once, the running one is asked to cancel; it does not end within the grace (its
 * worker is frozen), so the batch names it and exits 130. Once the worker runs again, the cancel
 * reaches the run. In another batch on the same worker, a second Ctrl-C leaves at once. Real PostgreSQL and a redis-server of the
 * test's own; skipped with a notice when a service does not answer (failed with
 * DOSSIER_REQUIRE_SERVICES=1).
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../../../test/faults/dossier-process.ts";
import { startFaultWorld } from "../../../test/faults/fault-world.ts";
import { redisServerProblem } from "../../../test/queue/own-redis.ts";
import { postgresProblem, redisProblem, servicesAnswer } from "../../../test/services.ts";
import { STOP_GRACE_MS } from "./batch-stop.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const QUESTIONS = [1, 2, 3].map((i) => ({ id: `q${i}`, prompt: `How is topic ${i} adoption changing?` }));

if (servicesAnswer([await postgresProblem(), await redisProblem(), await redisServerProblem()])) {
  describe("dossier batch stopped with Ctrl-C", () => {
    it("cancels the queued runs at once, names the run still under way after the grace and exits 130", async () => {
      const fault = await startFaultWorld({ subtasks: 2, latencyMs: 400 }, cleanups);
      const file = join(fault.world.home, "questions.jsonl");
      writeFileSync(file, `${QUESTIONS.map((q) => JSON.stringify(q)).join("\n")}\n`);
      const worker = fault.startWorker(["--concurrency", "1"]);
      // A frozen worker is thawed before it is stopped when the test ends.
      cleanups.push(() => worker.child.kill("SIGCONT"));
      await until(async () => (await fault.queue.status()).workers.length >= 1, 60_000, "the worker");
      const batch = fault.startCli([
        "batch",
        file,
        "--strategy",
        "minddr",
        "--queue",
        fault.queueUrl,
        "--concurrency",
        "3",
        "--out",
        "articles.jsonl",
      ]);
      const running = await until(
        async () => {
          const runs = await fault.dossier.runs.list();
          const under = runs.filter((r) => r.status === "running");
          return runs.length === 3 && under.length === 1 && fault.modelRequests() >= 2 && under[0]!.id;
        },
        60_000,
        "one run running on the worker, two queued",
      );
      worker.child.kill("SIGSTOP");
      const interruptedAt = Date.now();
      batch.child.kill("SIGINT");
      const { code } = await batch.exited;
      const tookMs = Date.now() - interruptedAt;

      expect(code).toBe(130);
      expect(batch.stderr()).toContain("stopping the batch");
      expect(batch.stderr()).toContain(
        `stopped; 1 run(s) had not ended within ${STOP_GRACE_MS / 1000} s: ${running} (their cancellation reaches them on their workers)`,
      );
      expect(tookMs).toBeGreaterThanOrEqual(STOP_GRACE_MS);
      const runs = await fault.dossier.runs.list();
      expect(runs.filter((r) => r.id !== running).map((r) => [r.status, r.stopReason])).toEqual([
        ["cancelled", "cancelled: interrupted (Ctrl-C)"],
        ["cancelled", "cancelled: interrupted (Ctrl-C)"],
      ]);
      expect((await fault.dossier.store.runs.get(running))?.status).toBe("running");

      // The worker runs again: the cancel the batch recorded reaches its run.
      worker.child.kill("SIGCONT");
      await until(
        async () => (await fault.dossier.store.runs.get(running))?.status === "cancelled",
        30_000,
        "the run to end cancelled",
      );
      expect((await fault.dossier.store.runs.get(running))?.stopReason).toBe(
        "cancelled: interrupted (Ctrl-C)",
      );

      // Another batch on the same worker: a second Ctrl-C leaves at once, long before the grace.
      const again = fault.startCli([
        "batch",
        file,
        "--strategy",
        "minddr",
        "--queue",
        fault.queueUrl,
        "--limit",
        "1",
        "--out",
        "again.jsonl",
      ]);
      await until(
        async () => (await fault.dossier.runs.list({ status: "running" })).length === 1,
        60_000,
        "the next run running on the worker",
      );
      worker.child.kill("SIGSTOP");
      again.child.kill("SIGINT");
      await until(() => again.stderr().includes("Ctrl-C again to leave now"), 10_000, "the first stop");
      const secondAt = Date.now();
      again.child.kill("SIGINT");
      const second = await again.exited;
      expect(second).toEqual({ code: 130, signal: null });
      expect(Date.now() - secondAt).toBeLessThan(STOP_GRACE_MS);
      worker.child.kill("SIGCONT");
      await worker.stop("SIGTERM");
    }, 150_000);
  });
}
