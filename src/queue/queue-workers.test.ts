/**
 * Runs through the queue on real Redis and PostgreSQL: two `dossier worker` processes, several
 * runs of the loopback research world enqueued, one worker SIGKILLed while it holds a run with
 * completed model calls. Every run completes with a report whose citations resolve, every log
 * is contiguous, the killed run is resumed by the other worker from its journal (its journaled
 * calls replayed, none asked of the model again). Skipped with a notice when a service does not
 * answer (failed instead with DOSSIER_REQUIRE_SERVICES=1).
 */

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { worldEnv } from "../../test/research/killed-run.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import {
  postgresProblem,
  redisProblem,
  servicesAnswer,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
} from "../../test/services.ts";
import { citedNumbers } from "../core/citations.ts";
import type { DossierEvent } from "../core/events.ts";
import { createDossier, type Dossier } from "../runtime/dossier.ts";
import { startServer } from "../server/listen.ts";
import { readSse } from "../server/test-fixtures.ts";
import { queuedResearch } from "./queued-research.ts";
import { openRunQueue, type RunQueue } from "./run-queue.ts";

const CLI = fileURLToPath(new URL("../cli/main.ts", import.meta.url));
/** Runs enqueued directly, and through the HTTP API of a server that only enqueues. */
const RUNS = 4;
const API_RUNS = 1;

/** The model calls of one minddr run of the world (subtasks: 2), by role. */
const PER_RUN = {
  planner: 3,
  "search-step": 1,
  reader: 1,
  "sub-report": 1,
  outline: 1,
  section: 4,
  coherence: 1,
} as const;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Starts `dossier worker` with the world's environment and the shared services. */
function startWorker(world: ResearchWorld, env: Record<string, string>, queueUrl: string): ChildProcess {
  const child = spawn(
    process.execPath,
    [CLI, "worker", "--queue", queueUrl, "--concurrency", "2", "--lock-ms", "4000", "--json"],
    { cwd: world.home, env: { ...worldEnv(world), ...env }, stdio: ["ignore", "pipe", "pipe"] },
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

async function until<T>(check: () => Promise<T | undefined | false>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

if (servicesAnswer([await postgresProblem(), await redisProblem()])) {
  describe("runs through the queue on Redis, executed by worker processes into PostgreSQL", () => {
    it("completes every run when a worker is killed mid-run: the other resumes it from its journal", async () => {
      const schema = `dossier_queue_${randomBytes(5).toString("hex")}`;
      const databaseUrl = `${TEST_DATABASE_URL}?schema=${schema}`;
      const queueUrl = `${TEST_REDIS_URL}?prefix=${schema}`;
      const expectCalls = Object.fromEntries(
        // The killed run may have one call per agent in flight, asked again after the resume.
        Object.entries(PER_RUN).map(([role, n]) => [
          role,
          [n * (RUNS + API_RUNS), n * (RUNS + API_RUNS) + 2] as const,
        ]),
      );
      const world = await startResearchWorld({ subtasks: 2, latencyMs: 120, expectCalls });
      cleanups.push(() => world.close());
      cleanups.push(async () => {
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      });
      const queue: RunQueue = openRunQueue({ url: queueUrl, backoffMs: 200 });
      cleanups.push(async () => {
        await queue.close();
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
      const dossier: Dossier = createDossier({
        env: {},
        cwd: world.home,
        config: { ...world.config, databaseUrl },
      });
      cleanups.push(() => dossier.close());
      await dossier.store.ready();

      const env = { DOSSIER_DATABASE_URL: databaseUrl };
      const a = startWorker(world, env, queueUrl);
      const b = startWorker(world, env, queueUrl);
      // Starting two processes takes a while on a loaded machine.
      await until(async () => (await queue.status()).workers.length >= 2, 60_000, "two workers");

      const research = queuedResearch(dossier, queue, { pollMs: 100 });
      const server = await startServer({ dossier, port: 0, token: null, mcp: false, queued: research });
      cleanups.push(() => server.close("test over"));
      const created = await fetch(`${server.url}/v1/runs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          question: "How is topic 9 adoption changing?",
          strategy: "minddr",
          formats: ["md"],
        }),
      });
      expect(created.status).toBe(201);
      const apiRun = ((await created.json()) as { run: { id: string; status: string } }).run;
      expect(apiRun.status).toBe("queued");
      // An SSE client of this server follows the run on a worker: three events, then it reconnects.
      const firstPart = await readSse(await fetch(`${server.url}/v1/runs/${apiRun.id}/events`), 3);
      const handles = Array.from({ length: RUNS }, (_, i) =>
        research.research(`How is topic ${i + 1} adoption changing?`, {
          strategy: "minddr",
          formats: ["md"],
        }),
      );
      // Kill worker A once it holds a run that has journaled a few model answers.
      const victim = await until(
        async () => {
          for (const run of await dossier.runs.list({ status: "running" })) {
            if (run.owner?.pid !== a.pid) continue;
            const journaled = await dossier.store.journal(run.id).entries();
            const llm = [...journaled.values()].filter((e) => e.kind === "llm").length;
            if (llm >= 3) return run.id;
          }
          return false;
        },
        60_000,
        "worker A to be mid-run",
      );
      a.kill("SIGKILL");
      await new Promise((resolve) => a.once("exit", resolve));
      // What the killed attempt had paid for: the model answers its journal holds.
      const journaled = await dossier.store.journal(victim).entries();
      const journaledKeys = new Set([...journaled].flatMap(([key, e]) => (e.kind === "llm" ? [key] : [])));
      expect(journaledKeys.size).toBeGreaterThanOrEqual(3);
      const question = (await dossier.store.runs.get(victim))!.query;
      const ofVictim = (r: { body: unknown }) => JSON.stringify(r.body).includes(question);
      const askedBeforeKill = world.model.requests.filter(ofVictim).length;

      const results = await Promise.all(handles.map((h) => h.done));
      const rest = await readSse(
        await fetch(`${server.url}/v1/runs/${apiRun.id}/events`, {
          headers: { "last-event-id": firstPart.at(-1)!.id! },
        }),
      );
      const streamed = [...firstPart, ...rest].map((e) => Number(e.id));
      expect(streamed).toEqual(streamed.map((_, i) => i + 1));
      expect(rest.at(-1)).toMatchObject({ event: "run-end" });
      expect(JSON.parse(rest.at(-1)!.data)).toMatchObject({ status: "completed" });
      const apiView = await (await fetch(`${server.url}/v1/runs/${apiRun.id}`)).json();
      expect(apiView).toMatchObject({ run: { id: apiRun.id, status: "completed" } });
      for (const result of results) {
        const { status, stopReason, error } = result;
        expect({ status, stopReason, error: error?.message }).toMatchObject({ status: "completed" });
        const numbers = citedNumbers(result.markdown!);
        expect(numbers.length).toBeGreaterThan(0);
        for (const n of numbers) expect(result.markdown).toMatch(new RegExp(`^${n}\\. `, "m"));
        expect(readFileSync(result.paths[0]!, "utf8")).toBe(result.markdown);
        const events: DossierEvent[] = await dossier.store.events.list(result.runId);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
        expect(events.at(-1)).toMatchObject({ type: "run-end", status: "completed" });
      }
      // The killed run went on under worker B, from its journal.
      const record = await dossier.store.runs.get(victim);
      expect(record?.owner?.pid).toBe(b.pid);
      const events = await dossier.store.events.list(victim);
      const resume = events.find((e) => e.type === "run-resume");
      expect(resume).toMatchObject({ previousStatus: "interrupted" });
      const after = events.slice(events.indexOf(resume!));
      const replayed = after.filter((e) => e.type === "llm-end" && (e as { replayed?: boolean }).replayed);
      const replayedKeys = new Set(replayed.map((e) => (e as { key: string }).key));
      for (const e of after) {
        // No completed model call is asked again: a journaled key only replays.
        if (e.type === "llm-start") expect(journaledKeys.has((e as { key: string }).key)).toBe(false);
      }
      // Every journaled answer but the reader's is replayed (a finished page read replays whole).
      const readerKeys = new Set(
        events.flatMap((e) => (e.type === "llm-end" && e.role === "reader" ? [e.key] : [])),
      );
      for (const key of journaledKeys) if (!readerKeys.has(key)) expect(replayedKeys.has(key)).toBe(true);
      // The model server was asked again only what the killed attempt had not been answered for.
      const bodies = world.model.requests.filter(ofVictim).map((r) => JSON.stringify(r.body));
      const repeated = bodies.length - new Set(bodies).size;
      expect(repeated).toBeLessThanOrEqual(askedBeforeKill - journaledKeys.size);

      b.kill("SIGTERM");
      await new Promise((resolve) => b.once("exit", resolve));
    }, 180_000);
  });
}
