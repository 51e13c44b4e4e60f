import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { describe, expect, it, vi } from "vitest";
import { instantClock } from "../../test/scripted/clocks.ts";
import { memoryStore } from "../../test/scripted/harness.ts";
import { currentOwner, markInterruptedRuns, ownerGone, STALE_HEARTBEAT_MS } from "./run-liveness.ts";

/** The pid of a process that has already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(r.stdout);
}

describe("run liveness", () => {
  it("marks a running run whose owner process is gone as interrupted, and leaves live ones alone", async () => {
    const store = memoryStore();
    const now = Date.parse("2026-05-01T12:00:00.000Z");
    const createdAt = new Date(now - 1000).toISOString();
    const gone = { host: hostname(), pid: deadPid(), startedAt: createdAt };
    store.runs.create({ id: "dead", query: "q", strategy: "graph", options: {}, createdAt, owner: gone });
    store.runs.create({
      id: "mine",
      query: "q",
      strategy: "graph",
      options: {},
      createdAt,
      owner: currentOwner(),
    });
    store.runs.create({ id: "legacy", query: "q", strategy: "graph", options: {}, createdAt });
    const elsewhere = { host: `${hostname()}-other`, pid: 1, startedAt: createdAt };
    store.runs.create({
      id: "far-fresh",
      query: "q",
      strategy: "graph",
      options: {},
      createdAt,
      owner: elsewhere,
    });
    const stale = new Date(now - STALE_HEARTBEAT_MS - 1000).toISOString();
    store.runs.create({
      id: "far-stale",
      query: "q",
      strategy: "graph",
      options: {},
      createdAt: stale,
      owner: elsewhere,
    });

    expect((await markInterruptedRuns(store, instantClock(now))).sort()).toEqual(["dead", "far-stale"]);
    expect(await store.runs.get("dead")).toMatchObject({ status: "interrupted", finishedAt: null });
    expect((await store.runs.get("dead"))!.stopReason).toMatch(/^interrupted/);
    for (const id of ["mine", "legacy", "far-fresh"])
      expect((await store.runs.get(id))!.status).toBe("running");
    // A finished run is never judged.
    expect(ownerGone({ ...(await store.runs.get("dead"))!, status: "completed" }, now)).toBe(false);
    await store.close();
  });

  it("names this process the same way for its whole life, whatever the clock says later", () => {
    const first = currentOwner();
    const now = vi.spyOn(Date, "now").mockReturnValue(Date.now() + 60_000.7);
    const uptime = vi.spyOn(process, "uptime").mockReturnValue(1);
    try {
      // A store compares owners exactly: a start time computed again would not match.
      expect(currentOwner()).toEqual(first);
    } finally {
      now.mockRestore();
      uptime.mockRestore();
    }
  });
});
