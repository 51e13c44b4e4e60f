/**
 * Rollout service throughput: one batch of `--questions` rows × `--group` smtl rollouts posted
 * to `dossier train serve`'s service over HTTP, executed by 1 and 2 `dossier worker` processes
 * (`--workers`; 0 runs them in the service's own process) through the run queue (BullMQ on
 * Redis, PostgreSQL store), in a loopback research world where every model call takes
 * `--latency` ms (default 200; the policy's and the judge's alike), a search `--search` ms and a
 * page `--page` ms. The policy endpoint answers with token ids like vLLM and the batch asks for
 * them (`tokens: true`), as a trainer would.
 *
 * Measured from the POST to the batch's `batch-end` on its event stream: rollouts completed,
 * wall time, rollouts per hour, model calls per rollout (policy and judge), the time to read the
 * results with their token records, the median wait of a run (created → run-start) and its median
 * time (run-start → end), the runs taken up again (`run-resume`: a retry or a take-over) and how
 * many runs each process owned.
 *
 * Needs PostgreSQL and Redis (DOSSIER_TEST_DATABASE_URL, DOSSIER_TEST_REDIS_URL, or the project
 * machines' defaults) for worker counts above 0. Each count gets a schema and a queue prefix of
 * its own, removed afterwards.
 *
 * Run: node bench/rollout-service.ts [--workers 1,2] [--questions 8] [--group 4]
 *      [--concurrency 4] [--service-concurrency 32] [--latency 200] [--search 200] [--page 100]
 */

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import pg from "pg";
import { openRunQueue, RUN_QUEUE, type RunQueue } from "../src/queue/run-queue.ts";
import { createDossier } from "../src/runtime/dossier.ts";
import { readSse } from "../src/server/test-fixtures.ts";
import { startRolloutServer } from "../src/train/service/listen.ts";
import { createRolloutService } from "../src/train/service/rollout-service.ts";
import { BYTE_TOKENIZER, startFakeOpenAI } from "../test/fake-openai/index.ts";
import { startResearchWorld } from "../test/research/world.ts";

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const workerCounts = (arg("workers") ?? "1,2").split(",").map(Number);
const questions = Number(arg("questions") ?? 8);
const group = Number(arg("group") ?? 4);
const concurrency = Number(arg("concurrency") ?? 4);
const serviceConcurrency = Number(arg("service-concurrency") ?? 32);
const latencyMs = Number(arg("latency") ?? 200);
const searchMs = Number(arg("search") ?? 200);
const pageMs = Number(arg("page") ?? 100);

const DATABASE_URL = process.env.DOSSIER_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.DOSSIER_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const CLI = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const TOKEN = "b".repeat(40);

const ROWS = Array.from({ length: questions }, (_, i) => ({
  id: `q${i + 1}`,
  prompt: `Which topic saw measured growth of ${11 + i} percent in the 2025 survey?`,
  answer: "Topic 2",
}));

interface Row {
  workers: number;
  completed: number;
  other: number;
  wallMs: number;
  perHour: number;
  policyCalls: number;
  judgeCalls: number;
  resultsMs: number;
  /** Runs taken up again (a retry, a take-over): their `run-resume` events. */
  resumed: number;
  /** Runs owned by each worker process at the end (pid: runs). */
  owners: string;
  /** From the run's creation (enqueued) to its run-start, and from run-start to its end (ms, medians). */
  waitP50: number;
  runP50: number;
}

const percentile = (values: number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

async function measure(workers: number): Promise<Row> {
  const tag = `dossier_bench_rs_${randomBytes(5).toString("hex")}`;
  const databaseUrl = `${DATABASE_URL}?schema=${tag}`;
  const queueUrl = `${REDIS_URL}?prefix=${tag}`;
  const world = await startResearchWorld({ latencyMs, searchLatencyMs: searchMs, toolLatencyMs: pageMs });
  // The policy endpoint: the research script, answering with token ids like vLLM.
  const policy = await startFakeOpenAI({
    handler: (request) => world.script.handler(request),
    tokens: { tokenizer: BYTE_TOKENIZER },
  });
  const queued = workers > 0;
  const dossier = createDossier({
    env: {},
    cwd: world.home,
    config: { ...world.config, ...(queued ? { databaseUrl } : {}) },
  });
  await dossier.store.ready();
  let queue: RunQueue | null = null;
  const children: ChildProcess[] = [];
  try {
    if (queued) {
      queue = openRunQueue({ url: queueUrl });
      await queue.ready();
      const env = {
        PATH: process.env.PATH ?? "",
        DOSSIER_MODEL: world.config.model!,
        DOSSIER_BASE_URL: world.config.baseUrl!,
        DOSSIER_API_KEY: "sk-bench",
        DOSSIER_SEARCH: "searxng",
        SEARXNG_URL: world.config.searxngUrl!,
        DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
        DOSSIER_HOME: world.home,
        DOSSIER_DATABASE_URL: databaseUrl,
        DOSSIER_POLICY_KEY: "sk-policy",
      };
      for (let i = 0; i < workers; i++) {
        const child = spawn(
          process.execPath,
          [CLI, "worker", "--queue", queueUrl, "--concurrency", String(concurrency), "--json"],
          { cwd: world.home, env, stdio: ["ignore", "ignore", "pipe"] },
        );
        let err = "";
        child.stderr?.on("data", (d) => {
          err = (err + d).slice(-2000);
        });
        child.on("exit", (code, signal) => {
          if (code !== 0 && signal !== "SIGTERM" && code !== 143)
            console.error(`worker exited ${code ?? signal}: ${err}`);
        });
        children.push(child);
      }
      const readyBy = Date.now() + 120_000;
      while ((await queue.status()).workers.length < workers) {
        if (Date.now() > readyBy)
          throw new Error(`only ${(await queue.status()).workers.length} workers started`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    const service = await createRolloutService({
      dossier,
      env: { DOSSIER_POLICY_KEY: "sk-policy" },
      queue,
      queueOptions: { pollMs: 1_000, cwd: world.home },
      concurrency: queued ? serviceConcurrency : concurrency,
    });
    const server = await startRolloutServer({ service, home: world.home, port: 0, token: TOKEN });
    const call = (path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    try {
      const started = performance.now();
      const posted = await call("/v1/rollouts", {
        rows: ROWS,
        strategy: "smtl",
        group,
        research: { currentDate: "2026-03-01" },
        policy: { baseUrl: policy.url, model: "fake-model", apiKeyEnv: "DOSSIER_POLICY_KEY" },
        policyVersion: 1,
        reward: { name: "smtl" },
        tokens: true,
      });
      if (posted.status !== 202) throw new Error(`POST answered ${posted.status}: ${await posted.text()}`);
      const { batch } = (await posted.json()) as { batch: { id: string } };
      const events = await readSse(await call(`/v1/rollouts/${batch.id}/events`));
      const wallMs = performance.now() - started;
      const end = JSON.parse(events.at(-1)!.data) as { type: string; counts: Record<string, number> };
      if (end.type !== "batch-end") throw new Error("the event stream ended before batch-end");
      const read = performance.now();
      const results = (await (await call(`/v1/rollouts/${batch.id}/results`)).json()) as {
        rollouts: { tokens: unknown[] | null; runId: string | null }[];
      };
      const resultsMs = performance.now() - read;
      if (results.rollouts.some((r) => !r.tokens?.length)) throw new Error("a rollout has no token records");
      const completed = end.counts.completed ?? 0;
      const total = questions * group;
      const chat = (requests: { path: string }[]) =>
        requests.filter((r) => r.path === "/v1/chat/completions");
      let resumed = 0;
      const owners = new Map<number, number>();
      const waits: number[] = [];
      const times: number[] = [];
      for (const r of results.rollouts) {
        if (!r.runId) continue;
        resumed += (await dossier.store.events.list(r.runId, { types: ["run-resume"] })).length;
        const record = await dossier.store.runs.get(r.runId);
        owners.set(record?.owner?.pid ?? 0, (owners.get(record?.owner?.pid ?? 0) ?? 0) + 1);
        const [start] = await dossier.store.events.list(r.runId, { types: ["run-start"], limit: 1 });
        if (!record || !start) continue;
        waits.push(Date.parse(start.ts) - Date.parse(record.createdAt));
        if (record.finishedAt) times.push(Date.parse(record.finishedAt) - Date.parse(start.ts));
      }
      return {
        workers,
        completed,
        other: total - completed,
        wallMs,
        perHour: (completed / wallMs) * 3_600_000,
        policyCalls: chat(policy.requests).length / total,
        judgeCalls: chat(world.model.requests).length,
        resultsMs,
        resumed,
        owners: [...owners.values()].sort((a, b) => b - a).join("/"),
        waitP50: percentile(waits, 50),
        runP50: percentile(times, 50),
      };
    } finally {
      await server.close();
    }
  } finally {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGTERM");
            setTimeout(() => child.kill("SIGKILL"), 15_000).unref();
          }),
      ),
    );
    if (queue) {
      await queue.close();
      const raw = new Queue(RUN_QUEUE, { connection: queue.target.connection, prefix: queue.target.prefix });
      await raw.obliterate({ force: true }).catch(() => {});
      await raw.close();
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${tag}:*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
    await dossier.close();
    if (queued) {
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${tag} CASCADE`);
      await client.end();
    }
    await policy.close();
    await world.close();
  }
}

console.log(
  `rollout service throughput: ${questions} rows × group ${group} smtl rollouts with token ids, one batch; model call ${latencyMs} ms, search ${searchMs} ms, page ${pageMs} ms; ${concurrency} rollouts at once per worker (0 workers: in the service, ${concurrency} at once)`,
);
console.log(
  `load average before: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
const head = [
  "workers",
  "done",
  "other",
  "wall s",
  "rollouts/h",
  "policy calls/rollout",
  "judge calls",
  "results s",
];
const rows: string[][] = [];
for (const workers of workerCounts) {
  const r = await measure(workers);
  rows.push([
    String(r.workers),
    String(r.completed),
    String(r.other),
    (r.wallMs / 1000).toFixed(1),
    r.perHour.toFixed(0),
    r.policyCalls.toFixed(1),
    String(r.judgeCalls),
    (r.resultsMs / 1000).toFixed(2),
    (r.waitP50 / 1000).toFixed(1),
    (r.runP50 / 1000).toFixed(1),
    String(r.resumed),
    r.owners,
  ]);
}
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join("  ");
console.log(line(head));
for (const row of rows) console.log(line(row));
console.log(
  `load average after: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
process.exit(0);
