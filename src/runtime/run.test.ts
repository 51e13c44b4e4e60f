import { describe, expect, it } from "vitest";
import { instantClock } from "../../test/scripted/clocks.ts";
import { memoryStore, scriptedRegistry } from "../../test/scripted/harness.ts";
import { scriptedModel } from "../../test/scripted/scripted-model.ts";
import { startRun } from "./run.ts";

function setup(steps: Parameters<typeof scriptedModel>[0]) {
  const store = memoryStore();
  const model = scriptedModel(steps);
  const registry = scriptedRegistry({ default: model });
  return { store, model, registry, clock: instantClock() };
}

describe("startRun", () => {
  it("records a completed run with its events, usage and stop reason", async () => {
    const { store, registry, clock } = setup([{ text: "draft", usage: { input: 10, output: 5 } }]);
    const handle = startRun({
      store,
      registry,
      clock,
      query: "What changed?",
      options: { strategy: "test" },
      strategy: async (ctx) => {
        ctx.emit({ type: "phase", phase: "writing" });
        const r = await ctx.generate({ role: "writer", prompt: `today is ${ctx.currentDate}` });
        expect(r.text).toBe("draft");
        return { stopReason: "done-writing" };
      },
    });
    const { record, error } = await handle.done;
    expect(error).toBeNull();
    expect(record).toMatchObject({
      status: "completed",
      stopReason: "done-writing",
      usage: { inputTokens: 10, outputTokens: 5, costUsd: null, llmCalls: 1, toolCalls: 0 },
    });
    const events = await store.events.list(handle.runId);
    expect(events.map((e) => e.type)).toEqual(["run-start", "phase", "llm-start", "llm-end", "run-end"]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(events.at(-1)).toMatchObject({ status: "completed", stopReason: "done-writing" });
    expect((await store.runs.get(handle.runId))?.status).toBe("completed");
  });

  it("uses the clock's date as the run's current date unless one is given", async () => {
    const { store, registry, clock } = setup([]);
    const dates: string[] = [];
    await startRun({
      store,
      registry,
      clock,
      query: "q",
      options: { strategy: "t" },
      strategy: async (c) => {
        dates.push(c.currentDate);
        return {};
      },
    }).done;
    await startRun({
      store,
      registry,
      clock,
      query: "q",
      options: { strategy: "t", currentDate: "2025-01-31" },
      strategy: async (c) => {
        dates.push(c.currentDate);
        return {};
      },
    }).done;
    expect(dates).toEqual(["2026-11-22", "2025-01-31"]);
  });

  it("cancels: the call in flight is aborted, no new call starts, and run-end records the reason", async () => {
    let release: () => void = () => {};
    const started = new Promise<void>((r) => {
      release = r;
    });
    const { store, registry, model, clock } = setup([
      {
        reply: (call) =>
          new Promise((_, reject) => {
            release();
            call.options.abortSignal?.addEventListener("abort", () => reject(new Error("aborted by signal")));
          }),
      },
    ]);
    let callsAfterCancel = 0;
    const handle = startRun({
      store,
      registry,
      clock,
      query: "q",
      options: { strategy: "t" },
      strategy: async (ctx) => {
        await ctx.generate({ role: "default", prompt: "slow" }).catch(() => undefined);
        callsAfterCancel++;
        await ctx.generate({ role: "default", prompt: "never sent" });
        return {};
      },
    });
    await started;
    handle.cancel("user pressed Ctrl-C");
    const { record } = await handle.done;
    expect(record.status).toBe("cancelled");
    expect(record.stopReason).toBe("cancelled: user pressed Ctrl-C");
    expect(model.calls).toHaveLength(1);
    expect(callsAfterCancel).toBe(1);
    const end = await store.events.list(handle.runId, { types: ["run-end"] });
    expect(end).toMatchObject([{ status: "cancelled", stopReason: "cancelled: user pressed Ctrl-C" }]);
    const llmEnd = await store.events.list(handle.runId, { types: ["llm-end"] });
    expect(llmEnd).toMatchObject([{ ok: false, error: { code: "CANCELLED" } }]);
  });

  it("names the budget limit when a strategy lets BUDGET_EXCEEDED escape", async () => {
    const { store, registry, clock } = setup([]);
    const handle = startRun({
      store,
      registry,
      clock,
      query: "q",
      options: { strategy: "t", budget: { maxToolCalls: 1 } },
      strategy: async (ctx) => {
        ctx.budget.reserveToolCall();
        ctx.budget.reserveToolCall();
        return {};
      },
    });
    const { record } = await handle.done;
    expect(record).toMatchObject({
      status: "failed",
      stopReason: "budget:toolCalls",
      usage: { toolCalls: 1 },
    });
  });

  it("records a failing strategy as failed with its error, and never rejects", async () => {
    const { store, registry, clock } = setup([]);
    const handle = startRun({
      store,
      registry,
      clock,
      query: "q",
      options: { strategy: "t" },
      strategy: async () => {
        throw new Error("boom");
      },
    });
    const { record, error } = await handle.done;
    expect(error?.code).toBe("INTERNAL");
    expect(record).toMatchObject({
      status: "failed",
      stopReason: "error: INTERNAL",
      error: { code: "INTERNAL", message: "boom" },
    });
    expect((await store.events.list(handle.runId)).at(-1)).toMatchObject({
      type: "run-end",
      status: "failed",
    });
  });

  it("is cancelled at once by an outer signal that already aborted", async () => {
    const { store, registry, model, clock } = setup([]);
    const outer = new AbortController();
    outer.abort("shutdown");
    const handle = startRun({
      store,
      registry,
      clock,
      signal: outer.signal,
      query: "q",
      options: { strategy: "t" },
      strategy: async (ctx) => {
        await ctx.generate({ role: "default", prompt: "x" });
        return {};
      },
    });
    expect((await handle.done).record.stopReason).toBe("cancelled: shutdown");
    expect(model.calls).toHaveLength(0);
  });
});
