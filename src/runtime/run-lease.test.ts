import { describe, expect, it } from "vitest";
import { memoryStore, scriptedRegistry } from "../../test/scripted/harness.ts";
import { scriptedModel } from "../../test/scripted/scripted-model.ts";
import { startRun } from "./run.ts";
import { currentOwner } from "./run-liveness.ts";

/** Resolves once `check()` is true (polled every 5 ms, at most 5 s). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Starts a run whose strategy emits a phase and then waits until it is cancelled. */
function waitingRun(store: ReturnType<typeof memoryStore>) {
  return startRun({
    store,
    registry: scriptedRegistry({ default: scriptedModel([]) }),
    query: "q",
    options: { strategy: "waiting" },
    heartbeatMs: 10,
    strategy: async (ctx) => {
      ctx.emit({ type: "phase", phase: "waiting" });
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
      ctx.emit({ type: "phase", phase: "after the abort" });
      return {};
    },
  });
}

describe("a run's lease in the store", () => {
  it("is cancelled by a request made through the store (from any process) at its next heartbeat", async () => {
    const store = memoryStore();
    const handle = waitingRun(store);
    await until(async () => (await store.events.lastSeq(handle.runId)) >= 2);
    expect(
      await store.runs.requestCancel(handle.runId, "stopped from elsewhere", new Date().toISOString()),
    ).toBe(true);
    const { record } = await handle.done;
    expect(record).toMatchObject({ status: "cancelled", stopReason: "cancelled: stopped from elsewhere" });
    expect((await store.events.list(handle.runId)).at(-1)).toMatchObject({
      type: "run-end",
      status: "cancelled",
    });
  });

  it("stops writing once another process has taken the run over, and leaves that owner's record alone", async () => {
    const store = memoryStore();
    const handle = waitingRun(store);
    await until(async () => (await store.events.lastSeq(handle.runId)) >= 2);
    const other = { host: "elsewhere", pid: 1, startedAt: "2026-01-01T00:00:00.000Z" };
    const far = "9999-01-01T00:00:00.000Z";
    const taken = await store.runs.claim(handle.runId, other, far, { staleBefore: far });
    expect(taken?.owner).toEqual(other);
    const { record, error } = await handle.done;
    expect(error).toMatchObject({ code: "CONFLICT" });
    expect(record).toMatchObject({ status: "running", owner: other });
    // Nothing after the take-over: no phase after the abort, no run-end.
    expect((await store.events.list(handle.runId)).map((e) => e.type)).toEqual(["run-start", "phase"]);
  });

  it("ends failed with STORE_ERROR when the store stops taking its writes", async () => {
    const store = memoryStore();
    let appends = 0;
    const failing = {
      ...store,
      events: {
        ...store.events,
        append: (...args: Parameters<typeof store.events.append>) =>
          ++appends > 1 ? Promise.reject(new Error("disk full")) : store.events.append(...args),
      },
    };
    const { record, error } = await waitingRun(failing).done;
    expect(error).toMatchObject({ code: "STORE_ERROR" });
    expect(record).toMatchObject({ status: "failed", stopReason: "error: STORE_ERROR" });
  });

  it("keeps a resumed run that this process claimed through many heartbeats", async () => {
    const store = memoryStore();
    const first = waitingRun(store);
    await until(async () => (await store.events.lastSeq(first.runId)) >= 2);
    first.cancel("pause");
    await first.done;
    // As a resume does: the claim names this process, then the run beats under its own name.
    expect(await store.runs.claim(first.runId, currentOwner(), new Date().toISOString())).not.toBeNull();
    let beats = 0;
    const counting = {
      ...store,
      runs: {
        ...store.runs,
        heartbeat: (...args: Parameters<typeof store.runs.heartbeat>) => {
          beats++;
          return store.runs.heartbeat(...args);
        },
      },
    };
    const resumed = startRun({
      store: counting,
      registry: scriptedRegistry({ default: scriptedModel([]) }),
      query: "q",
      options: { strategy: "waiting" },
      runId: first.runId,
      resume: { previousStatus: "cancelled", previousWallMs: 0, journaledSteps: 0 },
      heartbeatMs: 5,
      strategy: async () => {
        await until(() => beats >= 10);
        return {};
      },
    });
    const { record, error } = await resumed.done;
    expect(error).toBeNull();
    expect(record).toMatchObject({ status: "completed" });
  });
});
