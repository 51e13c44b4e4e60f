/**
 * A running sweeper: the lease pass every heartbeat, the lost-job pass every period (default
 * 5 s) with a grace of the period (at least 2 s); a pass at a time, a hung one abandoned and
 * reported, a slow one not cut short; its timers never keep a process alive, and it stops
 * after the pass under way. Timers are vitest's fake ones: nothing here waits for real time.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { owners, type SweepWorld, sweepWorld } from "../../test/queue/sweep-world.ts";
import { DossierError } from "../core/errors.ts";
import { runHeartbeatMs } from "../runtime/run-liveness.ts";
import { requeueJobId } from "./reconcile.ts";
import { SWEEP_MS, type Sweeper, startSweeper } from "./sweeper.ts";

let world: SweepWorld;
let sweeper: Sweeper | undefined;
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  // A pass under way may wait on a fake timer: time moves on while the sweeper stops.
  const stopping = sweeper?.stop();
  await vi.advanceTimersByTimeAsync(60_000);
  await stopping;
  sweeper = undefined;
  // Spies first: a spy made on a fake timer function, restored after the real timers are back,
  // would put the fake one back on the global object for every later file of the worker.
  vi.restoreAllMocks();
  vi.useRealTimers();
  await world?.store.close();
});

const start = (extra: Parameters<typeof startSweeper>[0] extends infer O ? Partial<O> : never = {}) => {
  sweeper = startSweeper({
    queue: world.queue,
    store: world.store,
    clock: world.clock,
    staleAfterMs: 30_000,
    ...extra,
  });
  return sweeper;
};

/** A reading of the queue that answers when `release` is called. */
function heldReading() {
  let release: () => void = () => {};
  const answered = new Promise<void>((resolve) => {
    release = resolve;
  });
  const reading = async (): Promise<undefined> => {
    await answered;
  };
  return { release: () => release(), reading };
}

describe("a running sweeper", () => {
  it("sweeps lost jobs every 5 s and leases every heartbeat unless told otherwise", () => {
    world = sweepWorld();
    expect(SWEEP_MS).toBe(5_000);
    expect(start().periods).toEqual({ leasesMs: runHeartbeatMs(), queuedMs: 5_000 });
  });

  it("runs the lease pass every lease period and the lost-job pass every period", async () => {
    world = sweepWorld();
    await world.queued("lost", 60_000);
    await world.running("dead", owners.dead(), 1_000);
    expect(start({ periodMs: 3_000, leasePeriodMs: 1_000 }).periods).toEqual({
      leasesMs: 1_000,
      queuedMs: 3_000,
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(world.queue.added).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(world.queue.added.map((j) => j.job.runId)).toEqual(["dead"]);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(world.queue.readings).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(world.queue.added.map((j) => j.job.runId)).toEqual(["dead", "lost"]);
  });

  it("never keeps the process alive", () => {
    world = sweepWorld();
    const intervals = vi.spyOn(globalThis, "setInterval");
    start();
    const timers = intervals.mock.results.map((r) => r.value as NodeJS.Timeout);
    expect(timers).toHaveLength(2);
    for (const timer of timers) expect(timer.hasRef()).toBe(false);
    intervals.mockRestore();
  });

  it("gives a queued run the period as its grace, and 2 s at least", async () => {
    world = sweepWorld();
    await world.queued("a", 1_999);
    const short = start({ periodMs: 1_000 });
    expect(await short.sweep()).toEqual([]);
    world.clock.advance(1);
    expect((await short.sweep()).map((n) => n.runId)).toEqual(["a"]);
    await short.stop();
    // b is 7 999 ms old now.
    await world.queued("b", 7_998);
    const long = start({ periodMs: 8_000 });
    expect(await long.sweep()).toEqual([]);
    world.clock.advance(1);
    expect((await long.sweep()).map((n) => n.runId)).toEqual(["b"]);
  });

  it("sweeps anew at each call, both passes, lease notes first", async () => {
    world = sweepWorld();
    const running = start();
    const a = await world.queued("a", 60_000);
    await world.running("dead", owners.dead(), 1_000);
    expect((await running.sweep()).map((n) => [n.runId, n.action])).toEqual([
      ["dead", "taken-over"],
      ["a", "requeued"],
    ]);
    const b = await world.queued("b", 60_000);
    // The dead owner's run is handed on again (under the same job); only b is requeued.
    expect((await running.sweep()).map((n) => [n.runId, n.action])).toEqual([
      ["dead", "taken-over"],
      ["b", "requeued"],
    ]);
    expect(world.queue.added.map((j) => j.id)).toEqual([
      world.queue.added[0]?.id,
      requeueJobId(a),
      requeueJobId(b),
    ]);
  });

  it("gives a sweep asked for while one is under way the one under way", async () => {
    world = sweepWorld();
    await world.queued("lost", 60_000);
    const held = heldReading();
    world.queue.onReading = held.reading;
    const running = start();
    const first = running.sweep();
    const second = running.sweep();
    held.release();
    const [a, b] = await Promise.all([first, second]);
    expect(a).toEqual(b);
    expect(a.map((n) => n.runId)).toEqual(["lost"]);
    expect(world.queue.readings).toBe(2);
  });

  it("reports a failed pass and goes on with the next", async () => {
    world = sweepWorld();
    await world.queued("lost", 60_000);
    const errors: Error[] = [];
    world.queue.onReading = () => {
      throw new DossierError("STORE_ERROR", "the queue is away");
    };
    const running = start({ onError: (error) => errors.push(error) });
    expect(await running.sweep()).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual(["the queue is away"]);
    world.queue.onReading = undefined;
    expect((await running.sweep()).map((n) => n.runId)).toEqual(["lost"]);
    // Without a listener, a failure is still only the pass's.
    world.queue.onReading = () => {
      throw new Error("again");
    };
    const quiet = startSweeper({
      queue: world.queue,
      store: world.store,
      clock: world.clock,
      staleAfterMs: 1,
    });
    expect(await quiet.sweep()).toEqual([]);
    await quiet.stop();
  });

  it("lets a slow reading finish within 10 s however short the period, and abandons a hung one then", async () => {
    world = sweepWorld();
    await world.queued("slow", 60_000);
    const errors: Error[] = [];
    // Two readings of 4.5 s each.
    world.queue.onReading = () => new Promise((resolve) => setTimeout(() => resolve(undefined), 4_500));
    const running = start({ periodMs: 1_000, leasePeriodMs: 60_000, onError: (e) => errors.push(e) });
    const slow = running.sweep();
    await vi.advanceTimersByTimeAsync(9_000);
    expect((await slow).map((n) => n.runId)).toEqual(["slow"]);
    expect(errors).toEqual([]);
    const stopping = running.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    await stopping;

    await world.queued("hung", 60_000);
    world.queue.onReading = () => new Promise(() => {});
    const stuck = start({ periodMs: 1_000, leasePeriodMs: 60_000, onError: (e) => errors.push(e) });
    const hung = stuck.sweep();
    let ended = false;
    void hung.then(() => {
      ended = true;
    });
    await vi.advanceTimersByTimeAsync(9_999);
    expect(ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await hung).toEqual([]);
    expect(errors.map((e) => [(e as DossierError).code, e.message])).toEqual([
      ["TIMEOUT", "a sweep: no answer within 10000 ms"],
    ]);
  });

  it("stops sweeping when stopped, after the pass under way", async () => {
    world = sweepWorld();
    await world.queued("lost", 60_000);
    const held = heldReading();
    world.queue.onReading = held.reading;
    const running = start({ periodMs: 1_000, leasePeriodMs: 1_000 });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(world.queue.readings).toBe(1);
    let stopped = false;
    const stopping = running.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    held.release();
    await stopping;
    expect(world.queue.added.map((j) => j.job.runId)).toEqual(["lost"]);
    const readings = world.queue.readings;
    await world.queued("later", 60_000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(world.queue.readings).toBe(readings);
    expect(world.queue.added).toHaveLength(1);
  });
});
