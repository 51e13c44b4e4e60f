/**
 * The rollout service in queue mode, on real Redis and PostgreSQL: the service only enqueues,
 * two `dossier worker` processes share the batch's rollouts, each run with the policy endpoint
 * the request named (found by the worker in the shared store, with the key variable the worker
 * has) and its token ids. The trainer follows the batch over SSE and reads results scored by the
 * service's judge. Skipped with a notice when a service does not answer (failed instead with
 * DOSSIER_REQUIRE_SERVICES=1).
 */

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { BYTE_TOKENIZER, startFakeOpenAI } from "../../../test/fake-openai/index.ts";
import { worldEnv } from "../../../test/research/killed-run.ts";
import { SMTL_MARKERS } from "../../../test/research/smtl-answers.ts";
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
import { readSse } from "../../server/test-fixtures.ts";
import { batchEventSchema } from "./batch-events.ts";
import { batchResultsSchema } from "./batch-view.ts";
import { startRolloutServer } from "./listen.ts";
import { createRolloutService } from "./rollout-service.ts";

const CLI = fileURLToPath(new URL("../../cli/main.ts", import.meta.url));
const TOKEN = "q".repeat(40);
const ROWS = [
  { id: "q1", prompt: "Which topic saw measured growth in the 2025 survey?", answer: "Topic 2" },
  { id: "q2", prompt: "Which topic had 12 percent growth in the annual survey?", answer: "Topic 2" },
];

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

async function until<T>(check: () => Promise<T | undefined | false>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

if (servicesAnswer([await postgresProblem(), await redisProblem()])) {
  describe("dossier train serve with the run queue", () => {
    it("enqueues the batch's rollouts; two workers share them, each with the request's policy; SSE and results as in one process", async () => {
      const schema = `dossier_rolloutsvc_${randomBytes(5).toString("hex")}`;
      const databaseUrl = `${TEST_DATABASE_URL}?schema=${schema}`;
      const queueUrl = `${TEST_REDIS_URL}?prefix=${schema}`;
      const world = await startResearchWorld({
        latencyMs: 50,
        expectCalls: { "smtl-plan": 6, "smtl-step": 12, reader: [0, 6], "answer-judge": [1, 6] },
      });
      cleanups.push(() => world.close());
      cleanups.push(async () => {
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      });
      const queue = openRunQueue({ url: queueUrl });
      cleanups.push(async () => {
        await queue.close();
        const { Queue } = await import("bullmq");
        const raw = new Queue("dossier-runs", {
          connection: queue.target.connection,
          prefix: queue.target.prefix,
        });
        await raw.obliterate({ force: true });
        await raw.close();
      });
      const policy = await startFakeOpenAI({
        handler: (request) => world.script.handler(request),
        tokens: { tokenizer: BYTE_TOKENIZER },
      });
      cleanups.push(() => policy.close());
      const dossier = createDossier({ env: {}, cwd: world.home, config: { ...world.config, databaseUrl } });
      cleanups.push(() => dossier.close());
      await dossier.store.ready();

      // The key variable is the workers'; the service never reads it.
      const env = { DOSSIER_DATABASE_URL: databaseUrl, DOSSIER_POLICY_KEY: "sk-worker-policy" };
      const a = startWorker(world, env, queueUrl);
      const b = startWorker(world, env, queueUrl);
      await until(async () => (await queue.status()).workers.length >= 2, 60_000, "two workers");

      const service = await createRolloutService({ dossier, env: {}, queue, queueOptions: { pollMs: 100 } });
      expect(service.mode).toBe("queue");
      const server = await startRolloutServer({ service, home: world.home, port: 0, token: TOKEN });
      cleanups.push(() => server.close());
      const call = (path: string, body?: unknown) =>
        fetch(`${server.url}${path}`, {
          method: body === undefined ? "GET" : "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const body = {
        rows: ROWS,
        strategy: "smtl",
        group: 3,
        research: { currentDate: "2026-03-01" },
        policy: { baseUrl: policy.url, model: "fake-model", apiKeyEnv: "DOSSIER_POLICY_KEY" },
        policyVersion: "step-40",
        reward: { name: "smtl", advantage: "rloo" },
        tokens: true,
      };
      // A literal key would travel through Redis: refused in queue mode, with nothing queued.
      const literal = await call("/v1/rollouts", {
        ...body,
        policy: { ...body.policy, apiKeyEnv: undefined, apiKey: "sk-x" },
      });
      expect(literal.status).toBe(400);
      expect(await literal.json()).toMatchObject({
        error: { message: expect.stringContaining("apiKeyEnv") },
      });
      expect(await dossier.runs.list()).toEqual([]);

      const posted = await call("/v1/rollouts", body);
      expect(posted.status).toBe(202);
      const { batch } = (await posted.json()) as { batch: { id: string } };
      const events = (await readSse(await call(`/v1/rollouts/${batch.id}/events`))).map((e) =>
        batchEventSchema.parse(JSON.parse(e.data)),
      );
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.at(-1)).toMatchObject({
        type: "batch-end",
        status: "completed",
        counts: { completed: 6 },
      });
      expect(events.filter((e) => e.type === "rollout-started")).toHaveLength(6);
      expect(events.filter((e) => e.type === "group-scored")).toHaveLength(2);

      const results = batchResultsSchema.parse(await (await call(`/v1/rollouts/${batch.id}/results`)).json());
      expect(results.rollouts.map((r) => r.status)).toEqual(Array(6).fill("completed"));
      const owners = new Set<number | undefined>();
      for (const r of results.rollouts) {
        expect(r.reward).not.toBeNull();
        expect(r.advantage).not.toBeNull();
        expect(r.tokens!.length).toBeGreaterThan(0);
        expect(r.tokens!.every((t) => t.token_source === "server" && t.policy_version === "step-40")).toBe(
          true,
        );
        owners.add((await dossier.runs.get(r.runId!)).owner?.pid);
      }
      // The two workers shared the batch: every run is owned by one of them, both ran some.
      expect(owners).toEqual(new Set([a.pid, b.pid]));
      // The workers called the policy endpoint with their key, for the rollouts only; the
      // service's judge (the world's model) judged.
      const chat = policy.requests.filter((r) => r.path === "/v1/chat/completions");
      expect(chat.length).toBe(results.rollouts.reduce((n, r) => n + r.calls, 0));
      for (const r of chat) {
        expect(r.headers.authorization).toBe("Bearer sk-worker-policy");
        expect(JSON.stringify(r.body)).not.toContain(SMTL_MARKERS.judge);
      }
      for (const r of world.model.requests.filter((q) => q.path === "/v1/chat/completions"))
        expect(JSON.stringify(r.body)).toContain(SMTL_MARKERS.judge);
    }, 180_000);
  });
}
