/**
 * `dossier runs list` with the run queue: queued and running runs counted under the list, the
 * queue's depth and each live worker with its load; a queue that does not answer is an error
 * naming it. Worker names come from Redis and are printed terminal-safe.
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../../test/cli-io.ts";
import { redisProblem, servicesAnswer, TEST_REDIS_URL } from "../../../test/services.ts";
import { parseRedisUrl } from "../../queue/redis-target.ts";
import { announceWorker } from "../../queue/worker-registry.ts";
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
