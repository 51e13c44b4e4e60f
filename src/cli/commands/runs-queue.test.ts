/**
 * `dossier runs list` with the run queue: queued and running runs counted under the list, the
 * queue's depth and each live worker with its load; a queue that does not answer is an error
 * naming it. Worker names come from Redis and are printed terminal-safe. `dossier runs cancel`:
 * a queued run cancelled at once (its job removed), a running one asked of its process.
 */

import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../../test/cli-io.ts";
import { redisProblem, servicesAnswer, TEST_REDIS_URL } from "../../../test/services.ts";
import { queuedResearch } from "../../queue/queued-research.ts";
import { parseRedisUrl } from "../../queue/redis-target.ts";
import { openRunQueue, RUN_QUEUE } from "../../queue/run-queue.ts";
import { announceWorker } from "../../queue/worker-registry.ts";
import { createDossier } from "../../runtime/dossier.ts";
import { openSqliteStore } from "../../store/sqlite-store.ts";
import { queueStatusText } from "./queue-status.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A data folder with one queued and one running run. */
async function seeded(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "dossier-runs-queue-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const store = openSqliteStore({ home: join(dir, "data") });
  const run = { query: "q", strategy: "graph", options: {}, createdAt: "2026-05-01T10:00:00.000Z" };
  await store.runs.create({ ...run, id: "20260501-100000-queued", queued: true });
  // Its owner is on another host and beat just now: alive.
  await store.runs.create({
    ...run,
    createdAt: new Date().toISOString(),
    id: "20260501-100000-runner",
    owner: { host: "elsewhere", pid: 1, startedAt: "2026-05-01T09:00:00.000Z" },
  });
  await store.close();
  return dir;
}

const cli = (args: string[], dir: string, env: Record<string, string> = {}) =>
  runCliInProcess(args, { cwd: dir, env: { HOME: dir, DOSSIER_HOME: join(dir, "data"), ...env } });

if (servicesAnswer([await redisProblem()])) {
  describe("dossier runs list with the run queue", () => {
    it("counts queued and running runs and shows the queue's depth and each worker's load", async () => {
      const dir = await seeded();
      const url = `${TEST_REDIS_URL}?prefix=rl${randomBytes(5).toString("hex")}`;
      const announcement = announceWorker({
        target: parseRedisUrl(url),
        info: () => ({
          name: "box-7:4242",
          host: "box-7",
          pid: 4242,
          concurrency: 2,
          running: ["20260501-100000-runner"],
          startedAt: "2026-05-01T09:00:00.000Z",
        }),
      });
      cleanups.push(() => announcement.stop());
      await announcement.beat();
      const out = await cli(["runs", "list"], dir, { DOSSIER_REDIS_URL: url });
      expect(out.code, out.stderr).toBe(0);
      const lines = out.stdout.trim().split("\n");
      expect(lines[0]).toMatch(/^20260501-100000-runner\s+running/);
      expect(lines[1]).toMatch(/^20260501-100000-queued\s+queued/);
      expect(lines.slice(2)).toEqual([
        "1 queued, 1 running",
        "queue redis://127.0.0.1:6379: 0 waiting, 0 active, 0 delayed, 0 completed, 0 failed",
        "workers: 1, 1 of 2 run slots in use",
        expect.stringMatching(
          /^ {2}box-7:4242 {2}1\/2 runs \(20260501-100000-runner\) {2}heartbeat \d+ s ago$/,
        ),
      ]);
      // A worker that stopped is gone from the list.
      await announcement.stop();
      const after = await cli(["runs", "list"], dir, { DOSSIER_REDIS_URL: url });
      expect(after.stdout).toContain("workers: none");
    });

    it("cancels a queued run: recorded cancelled and its job removed from the queue", async () => {
      const dir = await seeded();
      mkdirSync(join(dir, "notes"));
      writeFileSync(join(dir, "notes", "n.md"), "# Note\n\nQueued runs wait for a worker.\n");
      const url = `${TEST_REDIS_URL}?prefix=rc${randomBytes(5).toString("hex")}`;
      const dossier = createDossier({ env: { DOSSIER_HOME: join(dir, "data") }, cwd: dir });
      const queue = openRunQueue({ url });
      cleanups.push(async () => {
        await queue.close();
        const raw = new Queue(RUN_QUEUE, {
          connection: queue.target.connection,
          prefix: queue.target.prefix,
        });
        await raw.obliterate({ force: true });
        await raw.close();
        await dossier.close();
      });
      const handle = queuedResearch(dossier, queue, { cwd: dir }).research("What do queued runs wait for?", {
        strategy: "offline",
        docs: "notes",
        sources: "local",
      });
      await handle.enqueued;
      expect((await queue.status()).waiting).toBe(1);
      const out = await cli(["runs", "cancel", handle.runId.slice(-6)], dir, { DOSSIER_REDIS_URL: url });
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toBe(`run ${handle.runId}: cancelled before it started\n`);
      expect((await queue.status()).waiting).toBe(0);
      expect(await dossier.store.runs.get(handle.runId)).toMatchObject({ status: "cancelled", owner: null });
    });
  });
}

describe("dossier runs list", () => {
  it("without a queue lists the runs and counts what is queued and running", async () => {
    const dir = await seeded();
    const out = await cli(["runs", "list"], dir);
    expect(out.code).toBe(0);
    expect(out.stdout.trim().split("\n").at(-1)).toBe("1 queued, 1 running");
    expect(out.stdout).not.toContain("queue ");
    const json = await cli(["runs", "list", "--json"], dir);
    expect((JSON.parse(json.stdout) as { status: string }[]).map((r) => r.status)).toEqual([
      "running",
      "queued",
    ]);
  });

  it("cancels a queued run in the store, asks a running run's process, and refuses an ended run", async () => {
    const dir = await seeded();
    const queued = await cli(["runs", "cancel", "20260501-100000-queued"], dir);
    expect(queued.stdout).toBe("run 20260501-100000-queued: cancelled before it started\n");
    const running = await cli(["runs", "cancel", "runner"], dir);
    expect(running.stdout).toBe(
      "run 20260501-100000-runner: cancelling (its process stops it at its next heartbeat)\n",
    );
    const again = await cli(["runs", "cancel", "20260501-100000-queued"], dir);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("[CONFLICT]");
    expect(again.stderr).toContain("it is cancelled");
    const store = openSqliteStore({ home: join(dir, "data") });
    try {
      expect(await store.runs.get("20260501-100000-queued")).toMatchObject({
        status: "cancelled",
        stopReason: "cancelled: cancelled with dossier runs cancel",
      });
      const runner = (await store.runs.get("20260501-100000-runner"))!;
      expect(
        (await store.runs.heartbeat(runner.id, runner.owner!, new Date().toISOString())).cancelRequested,
      ).toBe("cancelled with dossier runs cancel");
    } finally {
      await store.close();
    }
  });

  it("names a queue that does not answer, without its password, after the list", async () => {
    const dir = await seeded();
    const out = await cli(["runs", "list"], dir, { DOSSIER_REDIS_URL: "redis://u:secret@127.0.0.1:9" });
    expect(out.code).not.toBe(0);
    expect(out.stdout).toContain("20260501-100000-queued");
    expect(out.stderr).toContain("redis://u:***@127.0.0.1:9");
    expect(out.stderr).not.toContain("secret");
  });

  it("prints worker names and run ids from Redis without control sequences", () => {
    const text = queueStatusText(
      "redis://q",
      {
        waiting: 0,
        active: 1,
        delayed: 0,
        completed: 0,
        failed: 0,
        workers: [
          {
            name: "evil\u001b]0;pwned\u0007:1",
            host: "evil",
            pid: 1,
            concurrency: 1,
            running: ["r\u001b[2J"],
            startedAt: "2026-05-01T09:00:00.000Z",
            heartbeatAt: "2026-05-01T09:00:00.000Z",
          },
        ],
      },
      Date.parse("2026-05-01T09:00:03.000Z"),
    );
    expect(text).not.toContain("\u001b");
    expect(text).toContain("evil\\x1b]0;pwned\\x07:1  1/1 runs (r\\x1b[2J)  heartbeat 3 s ago");
  });
});
