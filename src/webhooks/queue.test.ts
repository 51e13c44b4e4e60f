/**
 * Webhooks with the run queue, on PostgreSQL and Redis: a run enqueued with a webhook is
 * announced by the worker that ran it; a queued run cancelled before any worker took it is
 * announced by the process that cancelled it. Skipped with a notice when a service does not
 * answer (failed with DOSSIER_REQUIRE_SERVICES=1).
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
import { queuedResearch } from "../queue/queued-research.ts";
import { openRunQueue, RUN_QUEUE } from "../queue/run-queue.ts";
import { startRunWorker } from "../queue/run-worker.ts";
import { createDossier } from "../runtime/dossier.ts";
import { startReceiver, TEST_SECRET } from "./test-receiver.ts";

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function world() {
  const home = mkdtempSync(join(tmpdir(), "dossier-webhook-queue-"));
  cleanup.push(() => rmSync(home, { recursive: true, force: true }));
  mkdirSync(join(home, "notes"));
  writeFileSync(join(home, "notes", "n.md"), "# Note\n\nQueued runs are taken by workers on any machine.\n");
  const schema = `dossier_test_${randomBytes(6).toString("hex")}`;
  const databaseUrl = new URL(TEST_DATABASE_URL);
  databaseUrl.searchParams.set("schema", schema);
  cleanup.push(async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });
  const url = `${TEST_REDIS_URL}?prefix=dw${randomBytes(5).toString("hex")}`;
  const open = () => {
    const dossier = createDossier({
      env: { DOSSIER_HOME: join(home, ".dossier") },
      cwd: home,
      config: {
        databaseUrl: databaseUrl.toString(),
        allowPrivateNetwork: true,
        webhooks: { secret: TEST_SECRET },
      },
    });
    cleanup.push(() => dossier.close());
    return dossier;
  };
  const queue = openRunQueue({ url, backoffMs: 50 });
  cleanup.push(async () => {
    await queue.close();
    const raw = new Queue(RUN_QUEUE, { connection: queue.target.connection, prefix: queue.target.prefix });
    await raw.obliterate({ force: true });
    await raw.close();
  });
  const hooks = await startReceiver(TEST_SECRET);
  cleanup.push(() => hooks.close());
  return { home, url, queue, open, hooks };
}

if (servicesAnswer([await postgresProblem(), await redisProblem()])) {
  describe("webhooks with the run queue", { timeout: 60_000 }, () => {
    it("a worker announces the run it ran", async () => {
      const w = await world();
      const server = w.open();
      const worker = startRunWorker({ dossier: w.open(), url: w.url, lockDurationMs: 5_000 });
      cleanup.push(() => worker.close(true));
      const queued = queuedResearch(server, w.queue, { pollMs: 50, cwd: w.home });
      const result = await queued.research("Who takes queued runs?", {
        docs: "notes",
        sources: "local",
        strategy: "offline",
        webhooks: [w.hooks.url],
      }).done;
      expect(result.status).toBe("completed");
      await w.hooks.count(1);
      expect(w.hooks.received[0]!.verifyError).toBeNull();
      expect(JSON.parse(w.hooks.received[0]!.body)).toMatchObject({
        type: "run.completed",
        data: { runId: result.runId, status: "completed" },
      });
      const [delivery] = await server.store.deliveries.list(result.runId);
      expect(delivery?.id).toBe(w.hooks.received[0]!.headers["webhook-id"]);
    });

    it("the process that cancels a queued run announces it", async () => {
      const w = await world();
      const server = w.open();
      const queued = queuedResearch(server, w.queue, { pollMs: 50, cwd: w.home });
      const handle = queued.research("Is a cancelled queued run announced?", {
        docs: "notes",
        sources: "local",
        strategy: "offline",
        webhooks: [w.hooks.url],
      });
      await handle.enqueued;
      handle.cancel("not needed after all");
      const result = await handle.done;
      expect(result.status).toBe("cancelled");
      await w.hooks.count(1);
      expect(w.hooks.received[0]!.verifyError).toBeNull();
      expect(JSON.parse(w.hooks.received[0]!.body)).toMatchObject({
        type: "run.cancelled",
        data: { runId: handle.runId, status: "cancelled" },
      });
    });
  });
}
