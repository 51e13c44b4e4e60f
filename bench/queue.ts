/**
 * Queue throughput: `--runs` research runs (default 200) enqueued at once through the run queue
 * (BullMQ on Redis, PostgreSQL store) and executed by 1, 2 and 4 `dossier worker` processes
 * (`--workers`), each taking `--concurrency` runs at once (default 4), in a loopback research
 * world where every model call takes `--latency` ms (default 200), a search `--search` ms and a
 * page `--page` ms. The model server and the search server sit behind counting proxies, so the
 * highest number of requests any provider had in flight at once is measured where the provider
 * sees it; the workers keep the providers' limits together through the limiter on Redis (model
 * requests: `--model-limit`, default 8, as DOSSIER_LLM_CONCURRENCY; SearXNG: its policy's 8).
 *
 * Printed per worker count: runs completed and failed, wall time from the first enqueue to the
 * last run's end, throughput (runs per minute), queue wait (enqueued → started by a worker,
 * p50 and p95) and run time (started → ended, p50), and the peak in-flight requests at the
 * model and the search provider with their limits.
 *
 * Needs PostgreSQL and Redis (DOSSIER_TEST_DATABASE_URL, DOSSIER_TEST_REDIS_URL, or the
 * project machines' defaults). Each worker count gets a schema and a queue prefix of its own,
 * removed afterwards.
 *
 * Run: node bench/queue.ts [--runs 200] [--workers 1,2,4] [--concurrency 4] [--latency 200]
 *      [--search 100] [--page 50] [--subtasks 2] [--model-limit 8]
 */

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, request as httpRequest, type Server } from "node:http";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import pg from "pg";
import { queuedResearch } from "../src/queue/queued-research.ts";
import { openRunQueue, RUN_QUEUE } from "../src/queue/run-queue.ts";
import { createDossier } from "../src/runtime/dossier.ts";
import { SEARCH_PROVIDER_POLICIES } from "../src/tools/search/provider-limits.ts";
import { startResearchWorld } from "../test/research/world.ts";

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const runs = Number(arg("runs") ?? 200);
const workerCounts = (arg("workers") ?? "1,2,4").split(",").map(Number);
const concurrency = Number(arg("concurrency") ?? 4);
const latencyMs = Number(arg("latency") ?? 200);
const searchMs = Number(arg("search") ?? 100);
const pageMs = Number(arg("page") ?? 50);
const subtasks = Number(arg("subtasks") ?? 2);
const modelLimit = Number(arg("model-limit") ?? 8);
const searchLimit = SEARCH_PROVIDER_POLICIES.searxng?.concurrency ?? 8;

const DATABASE_URL = process.env.DOSSIER_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.DOSSIER_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const CLI = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));

/** A loopback proxy that counts the requests in flight at its target (and the most at once). */
async function countingProxy(
  target: string,
): Promise<{ url: string; peak(): number; close(): Promise<void> }> {
  const to = new URL(target);
  let now = 0;
  let peak = 0;
  const server: Server = createServer((req, res) => {
    now++;
    peak = Math.max(peak, now);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      now--;
    };
    const upstream = httpRequest(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on("end", finish);
      },
    );
    upstream.on("error", () => {
      finish();
      res.destroy();
    });
    res.on("close", finish);
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const path = to.pathname.replace(/\/$/, "");
  return {
    url: `http://127.0.0.1:${port}${path}`,
    peak: () => peak,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const percentile = (values: number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

interface Row {
  workers: number;
  completed: number;
  failed: number;
  wallMs: number;
  perMinute: number;
  waitP50: number;
  waitP95: number;
  runP50: number;
  modelPeak: number;
  searchPeak: number;
}

async function measure(workers: number): Promise<Row> {
  const tag = `dossier_bench_${randomBytes(5).toString("hex")}`;
  const databaseUrl = `${DATABASE_URL}?schema=${tag}`;
  const queueUrl = `${REDIS_URL}?prefix=${tag}`;
  const world = await startResearchWorld({
    subtasks,
    latencyMs,
    searchLatencyMs: searchMs,
    toolLatencyMs: pageMs,
  });
  const modelProxy = await countingProxy(world.config.baseUrl!);
  const searchProxy = await countingProxy(world.config.searxngUrl!);
  const dossier = createDossier({
    env: {},
    cwd: world.home,
    config: { ...world.config, databaseUrl, baseUrl: modelProxy.url, searxngUrl: searchProxy.url },
  });
  await dossier.store.ready();
  const queue = openRunQueue({ url: queueUrl });
  await queue.ready();
  const children: ChildProcess[] = [];
  try {
    const env = {
      PATH: process.env.PATH ?? "",
      DOSSIER_MODEL: world.config.model!,
      DOSSIER_BASE_URL: modelProxy.url,
      DOSSIER_API_KEY: "sk-test",
      DOSSIER_SEARCH: "searxng",
      SEARXNG_URL: searchProxy.url,
      DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
      DOSSIER_HOME: world.home,
      DOSSIER_DATABASE_URL: databaseUrl,
      DOSSIER_LLM_CONCURRENCY: String(modelLimit),
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
        throw new Error(`only ${(await queue.status()).workers.length} of ${workers} workers started`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const research = queuedResearch(dossier, queue, { pollMs: 1_000, cwd: world.home });
    const started = Date.now();
    const handles = Array.from({ length: runs }, (_, i) =>
      research.research(`How is topic ${(i % 20) + 1} adoption changing (run ${i + 1})?`, {
        strategy: "minddr",
        formats: ["md"],
      }),
    );
    const results = await Promise.all(
      handles.map((h) => h.done.catch((e: Error) => ({ status: `error: ${e.message}` }))),
    );
    const wallMs = Date.now() - started;

    const waits: number[] = [];
    const times: number[] = [];
    for (const handle of handles) {
      const record = await dossier.store.runs.get(handle.runId);
      const [start] = await dossier.store.events.list(handle.runId, { types: ["run-start"], limit: 1 });
      if (!record || !start) continue;
      const startMs = Date.parse(start.ts);
      waits.push(startMs - Date.parse(record.createdAt));
      if (record.finishedAt) times.push(Date.parse(record.finishedAt) - startMs);
    }
    const completed = results.filter((r) => r.status === "completed").length;
    return {
      workers,
      completed,
      failed: runs - completed,
      wallMs,
      perMinute: (completed / wallMs) * 60_000,
      waitP50: percentile(waits, 50),
      waitP95: percentile(waits, 95),
      runP50: percentile(times, 50),
      modelPeak: modelProxy.peak(),
      searchPeak: searchProxy.peak(),
    };
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
    await queue.close();
    const raw = new Queue(RUN_QUEUE, { connection: queue.target.connection, prefix: queue.target.prefix });
    await raw.obliterate({ force: true }).catch(() => {});
    await raw.close();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${tag}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await dossier.close();
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${tag} CASCADE`);
    await client.end();
    await Promise.all([modelProxy.close(), searchProxy.close()]);
    await world.close();
  }
}

console.log(
  `queue throughput: ${runs} minddr runs (subtasks ${subtasks}) enqueued at once; model call ${latencyMs} ms, search ${searchMs} ms, page ${pageMs} ms; ${concurrency} runs at once per worker; limits: model ${modelLimit}, searxng ${searchLimit} in flight (all workers together)`,
);
console.log(
  `load average before: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
const rows: Row[] = [];
for (const workers of workerCounts) {
  const row = await measure(workers);
  rows.push(row);
  console.log(
    `${workers} worker(s): ${row.completed} completed, ${row.failed} failed in ${(row.wallMs / 1000).toFixed(1)} s`,
  );
}
const head = [
  "workers",
  "done",
  "failed",
  "wall s",
  "runs/min",
  "wait p50 s",
  "wait p95 s",
  "run p50 s",
  "model peak",
  "search peak",
];
const s = (ms: number) => (ms / 1000).toFixed(1);
const table = rows.map((r) => [
  String(r.workers),
  String(r.completed),
  String(r.failed),
  s(r.wallMs),
  r.perMinute.toFixed(1),
  s(r.waitP50),
  s(r.waitP95),
  s(r.runP50),
  `${r.modelPeak}/${modelLimit}`,
  `${r.searchPeak}/${searchLimit}`,
]);
const widths = head.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join("  ");
console.log(line(head));
for (const row of table) console.log(line(row));
const over = rows.filter((r) => r.modelPeak > modelLimit || r.searchPeak > searchLimit);
console.log(
  over.length === 0
    ? "no provider ever had more requests in flight than its limit"
    : `LIMIT EXCEEDED with ${over.map((r) => `${r.workers} worker(s)`).join(", ")}`,
);
console.log(
  `load average after: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
process.exit(over.length === 0 ? 0 : 1);
