import { describe, expect, it } from "vitest";
import type { DossierEvent, EventInput } from "../core/events.ts";
import { openRunWriter } from "./run-writer.ts";
import { openSqliteStore } from "./sqlite-store.ts";
import type { Store } from "./types.ts";

const TS = "2026-01-01T00:00:01.000Z";
const phase = (name: string): EventInput => ({ type: "phase", phase: name });

async function storeWithRun(id = "r1") {
  const store = openSqliteStore({ home: ":memory:" });
  await store.runs.create({ id, query: "q", strategy: "s", options: {}, createdAt: TS });
  return store;
}

/** A store whose appends settle only when the test says, in any order it likes. */
function delayedAppends(store: Store) {
  const held: Array<() => void> = [];
  const events = {
    ...store.events,
    append: (runId: string, event: EventInput, ts: string) => {
      const stored = store.events.append(runId, event, ts);
      return new Promise<DossierEvent>((resolve, reject) => held.push(() => stored.then(resolve, reject)));
    },
  };
  const release = () => {
    for (const go of held.splice(0)) go();
  };
  return { store: { ...store, events } as Store, release };
}

describe("openRunWriter", () => {
  it("hands out the seq each event is stored under, continuing the run's log, and keeps their order", async () => {
    const store = await storeWithRun();
    await store.events.append("r1", phase("earlier attempt"), TS);
    const writer = await openRunWriter(store, "r1");
    const emitted = ["a", "b", "c"].map((name) => writer.emit(phase(name), TS));
    expect(emitted.map((e) => e.seq)).toEqual([2, 3, 4]);
    await writer.flush();
    expect(await store.events.list("r1")).toEqual([
      { type: "phase", phase: "earlier attempt", runId: "r1", seq: 1, ts: TS },
      ...emitted,
    ]);
  });

  it("replays the journal the run's earlier attempts stored, and writes new entries through", async () => {
    const store = await storeWithRun();
    await store.journal("r1").put("llm:a#1", { kind: "llm", value: "stored" });
    const writer = await openRunWriter(store, "r1");
    expect(writer.replayable).toBe(1);
    expect(writer.journal.get("llm:a#1")).toEqual({ kind: "llm", value: "stored" });
    writer.journal.put("tool:b#1", { kind: "tool", value: [1] });
    expect(writer.journal.get("tool:b#1")).toEqual({ kind: "tool", value: [1] });
    await writer.flush();
    expect(await store.journal("r1").entries()).toEqual(
      new Map([
        ["llm:a#1", { kind: "llm", value: "stored" }],
        ["tool:b#1", { kind: "tool", value: [1] }],
      ]),
    );
  });

  it("waits in flush for every write still under way", async () => {
    const base = await storeWithRun();
    const { store, release } = delayedAppends(base);
    const writer = await openRunWriter(store, "r1");
    writer.emit(phase("a"), TS);
    writer.emit(phase("b"), TS);
    let flushed = false;
    const flushing = writer.flush().then(() => {
      flushed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(flushed).toBe(false);
    release();
    await flushing;
    expect(flushed).toBe(true);
  });

  it("reports the first failed write once, and flush rejects with it", async () => {
    const store = await storeWithRun();
    const failures: string[] = [];
    const writer = await openRunWriter(store, "r1", { onFailure: (e) => failures.push(e.code) });
    await store.close(); // every later write fails
    writer.emit(phase("lost"), TS);
    writer.journal.put("llm:x#1", { kind: "llm", value: 1 });
    await expect(writer.flush()).rejects.toMatchObject({ code: "STORE_ERROR" });
    expect(failures).toEqual(["STORE_ERROR"]);
  });

  it("fails when another writer took a seq the run expected (the log is not the owner's alone)", async () => {
    const store = await storeWithRun();
    const failures: string[] = [];
    const writer = await openRunWriter(store, "r1", { onFailure: (e) => failures.push(e.message) });
    await store.events.append("r1", phase("intruder"), TS);
    writer.emit(phase("mine"), TS);
    await expect(writer.flush()).rejects.toMatchObject({ code: "STORE_ERROR" });
    expect(failures[0]).toMatch(/written by another process \(seq 2, expected 1\)/);
  });

  it("writes nothing once halted", async () => {
    const store = await storeWithRun();
    const writer = await openRunWriter(store, "r1");
    writer.emit(phase("before"), TS);
    writer.halt();
    writer.emit(phase("after"), TS);
    writer.journal.put("llm:x#1", { kind: "llm", value: 1 });
    await writer.flush();
    expect((await store.events.list("r1")).map((e) => e.seq)).toEqual([1]);
    expect(await store.journal("r1").entries()).toEqual(new Map());
  });
});
