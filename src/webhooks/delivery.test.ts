/**
 * Webhooks of real runs, on SQLite and PostgreSQL, received by a loopback receiver that checks
 * every signature with an independent Standard Webhooks implementation: a completed run's
 * event; a receiver that fails twice gets the third attempt with the same webhook-id; a
 * deliverer stopped once the outbox row is written, and a server started later over the same
 * store delivers it; status writes of failed and cancelled runs announced; a refused receiver
 * and a missing secret stop the run before it starts.
 */

import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { postgresProblem, servicesAnswer, TEST_DATABASE_URL } from "../../test/services.ts";
import { createDossier, type Dossier, type DossierOptions } from "../runtime/dossier.ts";
import { startServer } from "../server/listen.ts";
import { openStore } from "../store/open-store.ts";
import type { DeliveryRecord, Store } from "../store/types.ts";
import { webhookEventSchema } from "./event.ts";
import { type Receiver, startReceiver, TEST_SECRET } from "./test-receiver.ts";

const QUESTION = "How do heat pumps perform in cold climates?";

interface Backend {
  name: string;
  /** Settings of a fresh store and how to remove it. */
  fresh(root: string): Promise<{ databaseUrl?: string; dispose(): Promise<void> }>;
}

const backends: Backend[] = [{ name: "sqlite", fresh: async () => ({ dispose: async () => {} }) }];
if (servicesAnswer([await postgresProblem()])) {
  backends.push({
    name: "postgres",
    async fresh() {
      const schema = `dossier_test_${randomBytes(6).toString("hex")}`;
      const url = new URL(TEST_DATABASE_URL);
      url.searchParams.set("schema", schema);
      return {
        databaseUrl: url.toString(),
        async dispose() {
          const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await client.end();
        },
      };
    },
  });
}

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A project with a docs folder (the offline strategy researches it, no model needed). */
async function project(backend: Backend) {
  const root = mkdtempSync(join(tmpdir(), "dossier-webhooks-"));
  cleanup.push(() => rmSync(root, { recursive: true, force: true }));
  const docs = join(root, "notes");
  mkdirSync(docs);
  writeFileSync(
    join(docs, "heat-pumps.md"),
    "# Heat pumps\n\n## Cold climates\n\nCold-climate heat pumps kept a coefficient of performance above 2 at minus 15 degrees in the field trial.\n",
  );
  const store = await backend.fresh(root);
  cleanup.push(() => store.dispose());
  const open = (config: DossierOptions["config"] = {}): Dossier => {
    const dossier = createDossier({
      env: { DOSSIER_HOME: join(root, ".dossier") },
      cwd: root,
      config: {
        allowPrivateNetwork: true,
        ...(store.databaseUrl ? { databaseUrl: store.databaseUrl } : {}),
        ...config,
        webhooks: { secret: TEST_SECRET, baseDelayMs: 100, maxDelayMs: 200, ...config.webhooks },
      },
    });
    cleanup.push(() => dossier.close());
    return dossier;
  };
  /** A store opened afresh, as another process would. */
  const reopen = (): Store => {
    const other = openStore({ home: join(root, ".dossier"), databaseUrl: store.databaseUrl });
    cleanup.push(() => other.close());
    return other;
  };
  return { root, docs, open, reopen };
}

async function receiver(statuses: number[] = []): Promise<Receiver> {
  const r = await startReceiver(TEST_SECRET, statuses);
  cleanup.push(() => r.close());
  return r;
}

/** The one delivery of `runId` once `done` holds (bounded: a test fails, never hangs). */
async function deliveryWhen(store: Store, runId: string, done: (d: DeliveryRecord) => boolean) {
  for (let i = 0; i < 200; i++) {
    const [delivery] = await store.deliveries.list(runId);
    if (delivery && done(delivery)) return delivery;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no delivery of ${runId} came to the expected state`);
}

for (const backend of backends) {
  describe(`webhooks of runs (${backend.name})`, { timeout: 60_000 }, () => {
    it("announces a completed run with a signed event the independent implementation verifies", async () => {
      const p = await project(backend);
      const hooks = await receiver();
      const dossier = p.open();
      const result = await dossier.research(QUESTION, {
        docs: p.docs,
        formats: ["md", "json"],
        webhooks: [hooks.url],
      }).done;
      expect(result.status).toBe("completed");
      // Closing waits for the run's first attempt (webhooks.exitWaitMs).
      await dossier.close();
      expect(hooks.received).toHaveLength(1);
      const [got] = hooks.received;
      expect(got!.verifyError).toBeNull();
      const event = webhookEventSchema.parse(JSON.parse(got!.body));
      expect(event).toMatchObject({
        type: "run.completed",
        timestamp: result.record.finishedAt,
        data: {
          runId: result.runId,
          status: "completed",
          question: QUESTION,
          strategy: "offline",
          stopReason: "completed",
          error: null,
          report: {
            links: { md: `/v1/runs/${result.runId}/report/md`, json: `/v1/runs/${result.runId}/report/json` },
            paths: result.paths,
          },
          links: { run: `/v1/runs/${result.runId}`, webhooks: `/v1/runs/${result.runId}/webhooks` },
        },
      });
      const [delivery] = await p.reopen().deliveries.list(result.runId);
      expect(delivery).toMatchObject({
        id: got!.headers["webhook-id"],
        url: hooks.url,
        eventType: "run.completed",
        state: "delivered",
        body: got!.body,
        attempts: [{ status: 204, error: null }],
      });
      expect((await p.reopen().runs.get(result.runId))?.options.webhooks).toEqual([hooks.url]);
    });

    it("retries a receiver that fails twice: the third attempt is delivered with the same webhook-id", async () => {
      const p = await project(backend);
      const hooks = await receiver([500, 503]);
      const dossier = p.open();
      const { runId } = await dossier.research(QUESTION, { docs: p.docs, webhooks: [hooks.url] }).done;
      // The first attempt was made at the run's end; the retries as they come due.
      for (let i = 0; i < 200 && hooks.received.length < 3; i++) {
        await dossier.webhooks.deliverDue();
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const delivered = await deliveryWhen(dossier.store, runId, (d) => d.state === "delivered");
      expect(hooks.received.map((r) => r.status)).toEqual([500, 503, 204]);
      expect(hooks.received.every((r) => r.verifyError === null)).toBe(true);
      expect(new Set(hooks.received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([delivered.id]));
      expect(new Set(hooks.received.map((r) => r.body)).size).toBe(1);
      expect(delivered.attempts.map((a) => [a.status, a.error])).toEqual([
        [500, "HTTP 500: not now"],
        [503, "HTTP 503: not now"],
        [204, null],
      ]);
      // Each retry came after its backoff (100 ms, then 200 ms, ±25%).
      const at = delivered.attempts.map((a) => Date.parse(a.at));
      expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(75);
      expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(150);
    });

    it("delivers after a restart: the row written by a stopped deliverer is sent by a server started later", async () => {
      const p = await project(backend);
      const hooks = await receiver();
      const first = p.open();
      // The process that ran the run stops delivering once its outbox row is written.
      await first.webhooks.close();
      const { runId, record } = await first.research(QUESTION, { docs: p.docs, webhooks: [hooks.url] }).done;
      await first.close();
      expect(hooks.received).toEqual([]);
      const [pending] = await p.reopen().deliveries.list(runId);
      expect(pending).toMatchObject({ state: "pending", attempts: [], eventType: "run.completed" });

      // A server over the same store picks it up.
      const second = p.open();
      const server = await startServer({ dossier: second, port: 0, token: null });
      cleanup.push(() => server.close());
      await hooks.count(1);
      const delivered = await deliveryWhen(second.store, runId, (d) => d.state === "delivered");
      expect(hooks.received[0]!.verifyError).toBeNull();
      expect(hooks.received[0]!.headers["webhook-id"]).toBe(pending!.id);
      expect(JSON.parse(hooks.received[0]!.body)).toMatchObject({
        type: "run.completed",
        timestamp: record.finishedAt,
        data: { runId },
      });
      expect(delivered.attempts).toHaveLength(1);
    });

    it("announces a run that stops for review of its plan, and its end once the plan is approved", async () => {
      const p = await project(backend);
      const hooks = await receiver();
      const dossier = p.open();
      const paused = await dossier.research(QUESTION, {
        docs: p.docs,
        reviewPlan: true,
        webhooks: [hooks.url],
      }).done;
      expect(paused.status).toBe("awaiting-review");
      await hooks.count(1);
      expect(JSON.parse(hooks.received[0]!.body)).toMatchObject({
        type: "run.awaiting_review",
        data: { runId: paused.runId, status: "awaiting-review", report: null },
      });
      const answered = await dossier.runs.review(paused.runId, { action: "approve" });
      const done = await answered.handle!.done;
      expect(done.status).toBe("completed");
      await hooks.count(2);
      await dossier.close();
      expect(hooks.received.every((r) => r.verifyError === null)).toBe(true);
      expect(JSON.parse(hooks.received[1]!.body)).toMatchObject({
        type: "run.completed",
        timestamp: done.record.finishedAt,
        data: { runId: paused.runId, status: "completed", report: { paths: done.paths } },
      });
      expect(hooks.received[0]!.headers["webhook-id"]).not.toBe(hooks.received[1]!.headers["webhook-id"]);
    });

    it("announces a run awaiting review of its plan, and its end after the review", async () => {
      const p = await project(backend);
      const hooks = await receiver();
      const dossier = p.open();
      const t1 = "2026-03-01T10:00:00.000Z";
      const t2 = "2026-03-01T10:05:00.000Z";
      await dossier.store.runs.create({
        id: "run-review",
        query: QUESTION,
        strategy: "graph",
        options: { webhooks: [hooks.url], formats: ["md"], reportPaths: ["/reports/run-review.md"] },
        createdAt: t1,
      });
      await dossier.store.runs.update("run-review", { status: "awaiting-review", updatedAt: t1 });
      await hooks.count(1);
      await dossier.store.runs.update("run-review", {
        status: "completed",
        updatedAt: t2,
        finishedAt: t2,
        stopReason: "completed",
      });
      await hooks.count(2);
      await dossier.close();
      expect(hooks.received.every((r) => r.verifyError === null)).toBe(true);
      expect(hooks.received.map((r) => JSON.parse(r.body))).toMatchObject([
        { type: "run.awaiting_review", timestamp: t1, data: { status: "awaiting-review", report: null } },
        {
          type: "run.completed",
          timestamp: t2,
          data: {
            report: { links: { md: "/v1/runs/run-review/report/md" }, paths: ["/reports/run-review.md"] },
          },
        },
      ]);
      const ids = hooks.received.map((r) => r.headers["webhook-id"]);
      expect(new Set(ids).size).toBe(2);
    });

    it("announces failed runs and queued runs cancelled, from wherever their status is written", async () => {
      const p = await project(backend);
      const hooks = await receiver();
      const dossier = p.open();
      const now = new Date().toISOString();
      for (const id of ["run-failed", "run-queued"]) {
        await dossier.store.runs.create({
          id,
          query: QUESTION,
          strategy: "offline",
          options: { webhooks: [hooks.url] },
          createdAt: now,
          ...(id === "run-queued" ? { queued: true } : {}),
        });
      }
      await dossier.store.runs.update("run-failed", {
        status: "failed",
        updatedAt: now,
        finishedAt: now,
        stopReason: "error: STORE_ERROR",
        error: { code: "STORE_ERROR", message: "the disk is full" },
      });
      expect(await dossier.store.runs.requestCancel("run-queued", "no longer needed", now)).toBe(true);
      await hooks.count(2);
      await dossier.close();
      const events = hooks.received
        .map((r) => JSON.parse(r.body))
        .sort((a, b) => a.type.localeCompare(b.type));
      expect(events).toMatchObject([
        {
          type: "run.cancelled",
          data: { runId: "run-queued", status: "cancelled", stopReason: "cancelled: no longer needed" },
        },
        {
          type: "run.failed",
          data: { runId: "run-failed", error: { code: "STORE_ERROR", message: "the disk is full" } },
        },
      ]);
      expect(hooks.received.every((r) => r.verifyError === null)).toBe(true);
      // Writing the same status again announces nothing new.
      const again = p.open();
      const record = (await again.store.runs.get("run-failed"))!;
      await again.store.runs.update("run-failed", {
        status: "failed",
        updatedAt: now,
        finishedAt: record.finishedAt,
      });
      expect(await again.store.deliveries.list("run-failed")).toHaveLength(1);
    });
  });
}

describe("a process that leaves", { timeout: 30_000 }, () => {
  it("waits exitWaitMs for a silent receiver, then leaves the delivery pending and uncounted", async () => {
    const p = await project(backends[0]!);
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    cleanup.push(
      () =>
        new Promise<void>((resolve) => {
          silent.closeAllConnections();
          silent.close(() => resolve());
        }),
    );
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hooks`;
    // An attempt may take a minute; the process waits 200 ms for it (past the 30 s test timeout otherwise).
    const dossier = p.open({ webhooks: { timeoutMs: 60_000, exitWaitMs: 200 } });
    const { runId } = await dossier.research(QUESTION, { docs: p.docs, webhooks: [url] }).done;
    await dossier.close();
    const [pending] = await p.reopen().deliveries.list(runId);
    expect(pending).toMatchObject({ state: "pending", attempts: [], url });
  });
});

describe("webhooks refused before a run starts", { timeout: 60_000 }, () => {
  it("refuses a loopback receiver unless private networks are allowed, and webhooks without a secret", async () => {
    const p = await project(backends[0]!);
    const hooks = await receiver();
    const guarded = p.open({ allowPrivateNetwork: false });
    await expect(
      guarded.research(QUESTION, { docs: p.docs, webhooks: [hooks.url] }).done,
    ).rejects.toMatchObject({
      code: "NETWORK_REFUSED",
      message: expect.stringMatching(
        /^webhook http:\/\/127\.0\.0\.1:\d+\/hooks\/dossier: refused to connect/,
      ),
    });
    const secretless = createDossier({
      env: { DOSSIER_HOME: join(p.root, ".dossier") },
      cwd: p.root,
      config: { allowPrivateNetwork: true },
    });
    cleanup.push(() => secretless.close());
    await expect(
      secretless.research(QUESTION, { docs: p.docs, webhooks: [hooks.url] }).done,
    ).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining(
        "set DOSSIER_WEBHOOK_SECRET (or webhooks.secret in the configuration) to whsec_",
      ),
    });
    expect(await guarded.runs.list()).toEqual([]);
    expect(hooks.received).toEqual([]);
  });
});
