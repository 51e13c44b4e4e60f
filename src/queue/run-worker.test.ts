/**
 * The run queue and a worker in this process, on real Redis (the store is SQLite here; the
 * multi-process test uses PostgreSQL): retries resume the run from its journal, a failure that
 * retrying cannot fix is not retried, cancellation reaches a run on a worker and withdraws a
 * queued one, a bad request is refused before anything is queued, and a Redis that does not
 * answer is a clear error. Skipped with a notice when Redis does not answer.
 */

import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel } from "../../test/scripted/scripted-model.ts";
import { redisProblem, servicesAnswer, TEST_REDIS_URL } from "../../test/services.ts";
import { DossierError } from "../core/errors.ts";
import { createOutline } from "../core/outline.ts";
import { assembleReport } from "../kit/report-assembly.ts";
import { createDossier } from "../runtime/dossier.ts";
import { createServerApp } from "../server/app.ts";
import { readSse } from "../server/test-fixtures.ts";
import type { WorkersView } from "../server/workers-routes.ts";
import type { StrategyDefinition } from "../strategies/types.ts";
import { queuedResearch } from "./queued-research.ts";
import { openRunQueue, RUN_QUEUE } from "./run-queue.ts";
import { startRunWorker } from "./run-worker.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A strategy that asks the model once, then fails `failures` times with `error` before it reports. */
function flaky(attempts: { n: number }, failures: number, error: DossierError): StrategyDefinition<never> {
  const definition: StrategyDefinition<Record<string, never>> = {
    name: "flaky",
    description: "asks once, fails, then reports",
    optionsSchema: z.object({}).strict(),
    roles: ["writer"],
    capabilities: { needsModel: true, web: false, local: false },
    estimate: () => ({ llm: [{ role: "writer", count: [1, 1], input: 100, output: 50 }], tools: [0, 0] }),
    async run(ctx, input) {
      attempts.n++;
      const { value } = await ctx.structured({
        role: "writer",
        schema: z.object({ text: z.string() }),
        prompt: ctx.query,
      });
      if (attempts.n <= failures) throw error;
      const report = assembleReport(ctx, {
        title: "Flaky",
        outline: createOutline([{ title: "Answer", plan: "the answer" }]),
        language: input.language,
        parts: [{ text: `## Answer\n\n${value.text}`, allowed: new Set() }],
        stopReason: "completed",
      });
      return { stopReason: "completed", report };
    },
  };
  return definition as StrategyDefinition<never>;
}

/** A strategy that waits until its run is cancelled. */
const waitingDefinition: StrategyDefinition<Record<string, never>> = {
  name: "waiting",
  description: "waits to be cancelled",
  optionsSchema: z.object({}).strict(),
  roles: ["writer"],
  capabilities: { needsModel: true, web: false, local: false },
  estimate: () => ({ llm: [], tools: [0, 0] }),
  run: (ctx) =>
    new Promise((_, reject) => {
      ctx.emit({ type: "phase", phase: "waiting" });
      ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
    }),
};
const waiting = waitingDefinition as StrategyDefinition<never>;

/** A Dossier on a SQLite store, a queue under a prefix of its own, and (optionally) a worker. */
function setup(strategies: StrategyDefinition<never>[], steps: Parameters<typeof scriptedModel>[0]) {
  const home = mkdtempSync(join(tmpdir(), "dossier-queue-"));
  mkdirSync(join(home, "notes"));
  writeFileSync(join(home, "notes", "n.md"), "# Note\n\nQueued runs are taken by workers.\n");
  const url = `${TEST_REDIS_URL}?prefix=dq${randomBytes(5).toString("hex")}`;
  const model = scriptedModel(steps);
  const dossier = createDossier({
    env: { DOSSIER_HOME: home },
    cwd: home,
    config: { model: "openai-compatible:scripted" },
    models: { "openai-compatible:scripted": model.model },
    strategies,
  });
  const queue = openRunQueue({ url, backoffMs: 50 });
  cleanups.push(async () => {
    await queue.close();
    const raw = new Queue(RUN_QUEUE, { connection: queue.target.connection, prefix: queue.target.prefix });
    await raw.obliterate({ force: true });
    await raw.close();
    await dossier.close();
    rmSync(home, { recursive: true, force: true });
  });
  const startWorker = (options: { concurrency?: number } = {}) => {
    const worker = startRunWorker({ dossier, url, lockDurationMs: 5_000, ...options });
    cleanups.push(() => worker.close(true));
    return worker;
  };
  const queued = queuedResearch(dossier, queue, { pollMs: 50, cwd: home });
  // Every run reads the notes folder (the strategies here search nothing).
  const research = {
    research: (question: string, options: Parameters<typeof queued.research>[1] = {}) =>
      queued.research(question, { docs: "notes", sources: "local", ...options }),
  };
  return { dossier, queue, queued, model, startWorker, research };
}

if (servicesAnswer([await redisProblem()])) {
  describe("the run queue with a worker", () => {
    it("retries a run that failed with a retryable error by resuming it: its model answer replays", async () => {
      const attempts = { n: 0 };
      const error = new DossierError("PROVIDER_ERROR", "the provider hiccupped", { retryable: true });
      const { research, model, startWorker, dossier } = setup(
        [flaky(attempts, 1, error)],
        [{ json: { text: "answered once" } }],
      );
      startWorker();
      const handle = research.research("Does a retried run pay twice?", { strategy: "flaky" });
      const result = await handle.done;
      expect(result).toMatchObject({ status: "completed", runId: handle.runId });
      expect(result.markdown).toContain("answered once");
      expect(attempts.n).toBe(2);
      expect(model.calls).toHaveLength(1);
      const events = await dossier.store.events.list(handle.runId);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.filter((e) => e.type === "run-end").map((e) => e.type === "run-end" && e.status)).toEqual(
        ["failed", "completed"],
      );
      expect(events.find((e) => e.type === "run-resume")).toMatchObject({
        previousStatus: "failed",
        journaledSteps: 1,
      });
      expect(
        events.filter((e) => e.type === "llm-end").map((e) => e.type === "llm-end" && e.replayed),
      ).toEqual([false, true]);
    });

    it("does not retry a failure that retrying cannot fix: the handle reports it", async () => {
      const attempts = { n: 0 };
      const error = new DossierError("INPUT_INVALID", "this question cannot be answered");
      const { research, startWorker } = setup([flaky(attempts, 5, error)], [{ json: { text: "x" } }]);
      startWorker();
      const result = await research.research("Is this ever retried?", { strategy: "flaky" }).done;
      expect(result.status).toBe("failed");
      expect(result.error).toMatchObject({ code: "INPUT_INVALID" });
      expect(attempts.n).toBe(1);
    });

    it("cancels a run on a worker through the store, and a queued run at once, its job withdrawn", async () => {
      const { research, startWorker, dossier, queue } = setup([waiting], []);
      const queued = research.research("Is a queued run withdrawn?", { strategy: "waiting" });
      await expect.poll(async () => (await queue.status()).waiting).toBe(1);
      // Listed as queued from the moment it is enqueued: no owner, no events.
      expect(await dossier.runs.list({ status: "queued" })).toMatchObject([
        { id: queued.runId, status: "queued", strategy: "waiting", owner: null },
      ]);
      expect(await dossier.store.events.lastSeq(queued.runId)).toBe(0);
      queued.cancel("not needed any more");
      expect(await queued.done).toMatchObject({
        status: "cancelled",
        stopReason: "cancelled: not needed any more",
        markdown: null,
      });
      expect((await queue.status()).waiting).toBe(0);
      expect(await dossier.store.runs.get(queued.runId)).toMatchObject({
        status: "cancelled",
        owner: null,
        stopReason: "cancelled: not needed any more",
      });
      expect(await dossier.store.events.lastSeq(queued.runId)).toBe(0);

      startWorker();
      const running = research.research("Is a running run cancelled?", { strategy: "waiting" });
      await expect
        .poll(async () => (await dossier.store.events.lastSeq(running.runId)) >= 2, { timeout: 10_000 })
        .toBe(true);
      running.cancel("stopped from the enqueuer");
      const result = await running.done;
      expect(result).toMatchObject({
        status: "cancelled",
        stopReason: "cancelled: stopped from the enqueuer",
      });
      const seen = [];
      for await (const event of running.events()) seen.push(event.type);
      expect(seen).toEqual(["run-start", "phase", "run-end"]);
    });

    it("takes a queued run up: queued until a worker claims it, then running under that worker", async () => {
      const { research, startWorker, dossier } = setup([waiting], []);
      const handle = research.research("Who runs a queued run?", { strategy: "waiting" });
      await handle.enqueued;
      const queued = await dossier.store.runs.get(handle.runId);
      expect(queued).toMatchObject({ status: "queued", owner: null, heartbeatAt: null });
      // Not resumable while queued; a server that did not enqueue it follows it from the store.
      await expect(dossier.runs.resume(handle.runId).done).rejects.toMatchObject({
        code: "CONFLICT",
        message: expect.stringContaining("is queued"),
      });
      const server = createServerApp({ dossier, token: null });
      cleanups.push(() => server.close());
      const stream = Promise.resolve(server.app.request(`/v1/runs/${handle.runId}/events`)).then(readSse);
      startWorker();
      await expect
        .poll(async () => (await dossier.store.runs.get(handle.runId))?.status, { timeout: 10_000 })
        .toBe("running");
      const running = await dossier.store.runs.get(handle.runId);
      expect(running).toMatchObject({ owner: { pid: process.pid }, createdAt: queued!.createdAt });
      handle.cancel("seen running");
      expect(await handle.done).toMatchObject({ status: "cancelled" });
      const events = await dossier.store.events.list(handle.runId);
      expect(events.map((e) => e.type)).toEqual(["run-start", "phase", "run-end"]);
      expect((await stream).map((e) => e.event)).toEqual(["run-start", "phase", "run-end"]);
    });

    it("skips a job whose run was cancelled while queued (cancelled from another process)", async () => {
      const { research, startWorker, dossier, queue } = setup([waiting], []);
      const handle = research.research("Is a cancelled run started?", { strategy: "waiting" });
      await handle.enqueued;
      // Another process cancels through the store only: the job stays in the queue.
      expect(
        await dossier.store.runs.requestCancel(handle.runId, "elsewhere", new Date().toISOString()),
      ).toBe(true);
      expect((await queue.status()).waiting).toBe(1);
      startWorker();
      expect(await handle.done).toMatchObject({ status: "cancelled", stopReason: "cancelled: elsewhere" });
      expect(await dossier.store.runs.get(handle.runId)).toMatchObject({ status: "cancelled", owner: null });
      expect(await dossier.store.events.lastSeq(handle.runId)).toBe(0);
    });

    it("shows the queue's depth and the live workers with their load, also as GET /v1/workers", async () => {
      const { research, startWorker, dossier, queued } = setup([waiting], []);
      const worker = startWorker({ concurrency: 2 });
      await worker.ready();
      const handles = [1, 2, 3].map((i) =>
        research.research(`Which worker runs run ${i}?`, { strategy: "waiting" }),
      );
      await Promise.all(handles.map((h) => h.enqueued));
      await expect.poll(async () => (await queued.status()).active, { timeout: 10_000 }).toBe(2);
      // The worker's heartbeat is written as runs start: its load is current.
      await expect
        .poll(async () => (await queued.status()).workers[0]?.running.length, { timeout: 10_000 })
        .toBe(2);
      const status = await queued.status();
      expect(status).toMatchObject({ waiting: 1, active: 2 });
      expect(status.workers).toEqual([
        expect.objectContaining({ name: worker.name, pid: process.pid, concurrency: 2 }),
      ]);
      expect(new Set(status.workers[0]!.running)).toEqual(new Set(worker.running()));

      const server = createServerApp({ dossier, token: null, queued });
      try {
        const response = await server.app.request("/v1/workers");
        expect(response.status).toBe(200);
        const view = (await response.json()) as WorkersView;
        expect(view).toMatchObject({
          mode: "queue",
          queue: { waiting: 1, active: 2, url: expect.stringMatching(/^redis:\/\/127\.0\.0\.1/) },
          runs: { queued: 1, running: 2 },
        });
        expect(view.workers.map((w) => w.running.length)).toEqual([2]);
      } finally {
        await server.close();
      }
      for (const handle of handles) handle.cancel("done looking");
      await Promise.all(handles.map((h) => h.done));
      // A worker that stops leaves the registry at once.
      await worker.close();
      expect((await queued.status()).workers).toEqual([]);
    });

    it("refuses a bad request before anything is queued or stored", async () => {
      const { research, queue, dossier } = setup([waiting], []);
      const handle = research.research("x", { strategy: "waiting" });
      await expect(handle.done).rejects.toMatchObject({ code: "INPUT_INVALID" });
      const unknown = research.research("Which strategy is this?", { strategy: "no-such-strategy" });
      await expect(unknown.done).rejects.toMatchObject({ code: "INPUT_INVALID" });
      expect(await queue.status()).toMatchObject({ waiting: 0, active: 0, delayed: 0 });
      expect(await dossier.runs.list()).toEqual([]);
    });
  });
}

describe("a queue URL", () => {
  it("that does not answer is a STORE_ERROR naming the server without its password", async () => {
    const queue = openRunQueue({ url: "redis://user:secret@127.0.0.1:9", readyTimeoutMs: 500 });
    try {
      const error = await queue.ready().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "STORE_ERROR" });
      expect((error as Error).message).toContain("redis://user:***@127.0.0.1:9");
      expect((error as Error).message).not.toContain("secret");
    } finally {
      await queue.close();
    }
  });

  it("must be redis:// or rediss:// with a safe prefix", () => {
    expect(() => openRunQueue({ url: "http://127.0.0.1:6379" })).toThrow(/redis:\/\//);
    expect(() => openRunQueue({ url: "redis://127.0.0.1:6379?prefix=a:b" })).toThrow(/prefix/);
  });
});
