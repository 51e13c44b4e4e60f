/**
 * `dossier train rollouts --queue`: the rollouts are enqueued on real Redis and executed by a
 * `dossier worker` process into a shared PostgreSQL store; the CLI follows them and writes the
 * rollouts folder with every run recorded (its model calls, its group tag, its own seed). The
 * CLI process itself asks the model nothing. Skipped with a notice when a service does not answer
 * (failed instead with DOSSIER_REQUIRE_SERVICES=1).
 */

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../../test/cli-io.ts";
import { worldEnv } from "../../../test/research/killed-run.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import {
  postgresProblem,
  redisProblem,
  servicesAnswer,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
} from "../../../test/services.ts";
import { openRunQueue } from "../../queue/run-queue.ts";
import { createDossier } from "../../runtime/dossier.ts";
import { recordedRunSchema } from "../../train/recorded-run.ts";

const CLI = fileURLToPath(new URL("../main.ts", import.meta.url));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function startWorker(world: ResearchWorld, env: Record<string, string>, queueUrl: string): ChildProcess {
  const child = spawn(
    process.execPath,
    [CLI, "worker", "--queue", queueUrl, "--concurrency", "2", "--json"],
    {
      cwd: world.home,
      env: { ...worldEnv(world), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout?.resume();
  child.stderr?.resume();
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  );
  return child;
}

if (servicesAnswer([await postgresProblem(), await redisProblem()])) {
  describe("dossier train rollouts through the run queue", () => {
    it("enqueues G rollouts per row; a worker executes them; the folder records each run's calls", async () => {
      const schema = `dossier_rollq_${randomBytes(5).toString("hex")}`;
      const databaseUrl = `${TEST_DATABASE_URL}?schema=${schema}`;
      const queueUrl = `${TEST_REDIS_URL}?prefix=${schema}`;
      const world = await startResearchWorld({
        expectCalls: { "smtl-plan": 2, "smtl-step": 4, reader: [0, 2] },
      });
      cleanups.push(() => world.close());
      cleanups.push(async () => {
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      });
      cleanups.push(async () => {
        const cleaner = openRunQueue({ url: queueUrl });
        const { Queue } = await import("bullmq");
        const raw = new Queue("dossier-runs", {
          connection: cleaner.target.connection,
          prefix: cleaner.target.prefix,
        });
        await raw.obliterate({ force: true });
        await raw.close();
        await cleaner.close();
      });
      const env = { DOSSIER_DATABASE_URL: databaseUrl };
      const worker = startWorker(world, env, queueUrl);
      writeFileSync(
        join(world.home, "q.jsonl"),
        `${JSON.stringify({ id: "q1", prompt: "Which topic saw measured growth in the 2025 survey?", answer: "Topic 2" })}\n`,
      );
      const asked = () => world.model.requests.length;
      const run = await runCliInProcess(
        ["train", "rollouts", "q.jsonl", "--strategy", "smtl", "--group", "2", "--out", "ro"].concat([
          "--queue",
          queueUrl,
          "--date",
          "2026-03-01",
          "--json",
        ]),
        { cwd: world.home, env: { ...worldEnv(world), ...env } },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ total: 2, done: 2, failed: 0, unrecorded: [] });
      const runs = readFileSync(join(world.home, "ro", "runs.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => recordedRunSchema.parse(JSON.parse(l)));
      expect(runs.map((r) => `${r.group?.id}#${r.group?.index}`).sort()).toEqual(["q1#0", "q1#1"]);
      for (const r of runs) {
        expect(r.status).toBe("completed");
        // The worker recorded its model calls: every searcher call the model answered is there.
        expect(r.calls.filter((c) => c.role === "searcher").length).toBeGreaterThan(1);
      }
      expect(new Set(runs.map((r) => r.calls[0]!.sampling.seed)).size).toBe(2);
      // The worker ran them: it owns both runs in the shared store.
      const dossier = createDossier({ env: {}, cwd: world.home, config: { ...world.config, databaseUrl } });
      cleanups.push(() => dossier.close());
      for (const r of runs) expect((await dossier.runs.get(r.runId))?.owner?.pid).toBe(worker.pid);
      // Every model request came from the worker, all of them recorded in the two runs.
      expect(asked()).toBe(runs.reduce((n, r) => n + r.calls.length, 0));
    }, 120_000);
  });
}
