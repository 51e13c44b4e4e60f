import { describe, expect, it } from "vitest";
import { type WorkersView, workerRows, workersSummary } from "./workers.ts";

const worker = (name: string, running: string[], concurrency = 2) => ({
  name,
  host: name.split(":")[0]!,
  pid: 1,
  concurrency,
  running,
  startedAt: "2026-05-01T09:00:00.000Z",
  heartbeatAt: "2026-05-01T10:00:00.000Z",
});

const queued: WorkersView = {
  mode: "queue",
  queue: { url: "redis://q", waiting: 5, active: 3, delayed: 1, completed: 40, failed: 2 },
  workers: [worker("b:2", ["r3"], 1), worker("a:1", ["r1", "r2"], 4)],
  runs: { queued: 5, running: 3 },
};

describe("the workers panel", () => {
  it("sums up the queue's depth and the workers' slots in use", () => {
    expect(workersSummary(queued)).toBe(
      "Queue: 5 waiting, 3 active, 1 to retry; 2 workers, 3 of 5 slots in use.",
    );
    expect(workersSummary({ ...queued, workers: [] })).toBe(
      "Queue: 5 waiting, 3 active, 1 to retry; no worker is running (start one with dossier worker).",
    );
    expect(
      workersSummary({
        mode: "embedded",
        queue: null,
        workers: [worker("me:9", ["r9"], 1)],
        runs: { queued: 0, running: 1 },
      }),
    ).toBe("Runs execute in this server: 1 of 1 slot in use, 0 queued.");
  });

  it("lists workers by name with their load and the age of their heartbeat", () => {
    expect(workerRows(queued, Date.parse("2026-05-01T10:00:07.400Z"))).toEqual([
      { name: "a:1", load: "2 of 4", ratio: 0.5, seen: "7 s ago", running: ["r1", "r2"] },
      { name: "b:2", load: "1 of 1", ratio: 1, seen: "7 s ago", running: ["r3"] },
    ]);
  });
});
