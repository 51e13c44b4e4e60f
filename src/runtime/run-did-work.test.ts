/**
 * A run is completed only when it did its work: a budget already spent when the first model
 * call is asked for ends the run failed, with the budget's stop reason and a BUDGET_EXCEEDED
 * error — for every strategy that needs a model, and through the CLI (exit 1). A budget stop
 * after the model has been called stays a completed run with that stop reason. A run whose tool
 * calls gathered no evidence ends failed with NO_EVIDENCE naming the failures (exit 1); one
 * whose calls partly failed but gathered evidence completes.
 */

import { describe, expect, it } from "vitest";
import { startResearchWorld } from "../../test/research/world.ts";
import { dossierInWorld } from "../../test/research/world-cli.ts";
import { instantClock } from "../../test/scripted/clocks.ts";
import { memoryStore, scriptedRegistry } from "../../test/scripted/harness.ts";
import { scriptedModel } from "../../test/scripted/scripted-model.ts";
import { systemClock } from "../core/clock.ts";
import type { RunContext } from "../kit/run-context.ts";
import { startRun } from "./run.ts";

/** A strategy that writes once, then once more, and falls back to no text when the budget refuses. */
function writeTwice(advanceMs: number) {
  return async (ctx: Parameters<Parameters<typeof startRun>[0]["strategy"]>[0]) => {
    let stopReason = "completed";
    for (let i = 0; i < 2; i++) {
      try {
        await ctx.generate({ role: "writer", prompt: `part ${i}` });
      } catch (error) {
        if ((error as { code?: string }).code !== "BUDGET_EXCEEDED") throw error;
        stopReason = `budget:${(error as { details: { limit: string } }).details.limit}`;
      }
      (ctx.clock as ReturnType<typeof instantClock>).advance(advanceMs);
    }
    return { stopReason };
  };
}

describe("completed only when the run did its work", () => {
  it("a budget spent before the first model call: failed, budget stop reason, BUDGET_EXCEEDED", async () => {
    const store = memoryStore();
    const clock = instantClock();
    clock.advance(0);
    const handle = startRun({
      store,
      registry: scriptedRegistry({ default: scriptedModel([]) }),
      clock,
      query: "q",
      options: { strategy: "t", budget: { maxWallMs: 1 } },
      strategy: async (ctx) => {
        clock.advance(5);
        return writeTwice(0)(ctx);
      },
    });
    const { record, error } = await handle.done;
    expect(record).toMatchObject({
      status: "failed",
      stopReason: "budget:wallTime",
      usage: { llmCalls: 0 },
      error: { code: "BUDGET_EXCEEDED" },
    });
    expect(error).toMatchObject({ code: "BUDGET_EXCEEDED", details: { limit: "wallTime" } });
    expect((await store.events.list(handle.runId)).at(-1)).toMatchObject({
      type: "run-end",
      status: "failed",
      stopReason: "budget:wallTime",
      error: { code: "BUDGET_EXCEEDED" },
    });
  });

  it("a budget stop after a model call stays completed with the budget's stop reason", async () => {
    const store = memoryStore();
    const clock = instantClock();
    const handle = startRun({
      store,
      registry: scriptedRegistry({ default: scriptedModel([{ text: "one" }]) }),
      clock,
      query: "q",
      options: { strategy: "t", budget: { maxWallMs: 10 } },
      strategy: writeTwice(20),
    });
    const { record, error } = await handle.done;
    expect(error).toBeNull();
    expect(record).toMatchObject({
      status: "completed",
      stopReason: "budget:wallTime",
      usage: { llmCalls: 1 },
    });
  });

  /** A strategy that makes `calls` tool calls, the first `failing` of them failing, and keeps what the others found. */
  const searching = (calls: number, failing: number) => async (ctx: RunContext) => {
    await ctx.generate({ role: "writer", prompt: "plan" });
    for (let i = 0; i < calls; i++) {
      ctx.budget.reserveToolCall();
      const ok = i >= failing;
      const tool = i % 2 ? "crawl_page" : "web_search";
      ctx.emit({
        type: "tool-end",
        callId: `T${i}`,
        tool,
        ok,
        cached: false,
        latencyMs: 1,
        ...(ok ? {} : { error: { code: i % 2 ? "NETWORK_ERROR" : "PROVIDER_ERROR", message: "HTTP 500" } }),
      });
      if (!ok) continue;
      const { source } = ctx.evidence.addSource({
        kind: "web",
        url: `https://a.example/${i}`,
        title: "A",
        fetchedAt: "2026-01-01T00:00:00Z",
      });
      ctx.evidence.addEvidence({
        sourceId: source.id,
        text: `fact ${i}`,
        retrievedBy: { tool, callId: `T${i}` },
      });
    }
    return { stopReason: "completed" };
  };
  const runSearching = async (calls: number, failing: number) => {
    const store = memoryStore();
    const handle = startRun({
      store,
      registry: scriptedRegistry({ default: scriptedModel([{ text: "plan" }]) }),
      clock: instantClock(),
      query: "q",
      options: { strategy: "t" },
      strategy: searching(calls, failing),
    });
    const done = await handle.done;
    return { ...done, events: await store.events.list(handle.runId) };
  };

  it("tool calls that all failed: failed with NO_EVIDENCE naming the failures, its events kept", async () => {
    const { record, error, outcome, events } = await runSearching(3, 3);
    expect(record).toMatchObject({
      status: "failed",
      stopReason: "error: NO_EVIDENCE",
      error: { code: "NO_EVIDENCE" },
    });
    expect(error!.message).toBe(
      "the run gathered no evidence: every one of its 3 tool call(s) failed (web_search: PROVIDER_ERROR ×2, crawl_page: NETWORK_ERROR ×1)",
    );
    expect(error!.details).toMatchObject({ toolCalls: 3, failed: 3, stopReason: "completed" });
    // The strategy's outcome and the events stay: only the status says the run failed.
    expect(outcome).toEqual({ stopReason: "completed" });
    expect(events.filter((e) => e.type === "tool-end")).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({
      type: "run-end",
      status: "failed",
      error: { code: "NO_EVIDENCE" },
    });
  });

  it("a strategy that returns with stop reason no-research: failed with NO_RESEARCH, its outcome kept", async () => {
    const store = memoryStore();
    const handle = startRun({
      registry: scriptedRegistry({ default: scriptedModel([]) }),
      store,
      clock: instantClock(),
      query: "q",
      options: { strategy: "t" },
      strategy: async () => ({ stopReason: "no-research: nothing was written" }),
    });
    const { record, error, outcome } = await handle.done;
    expect(record).toMatchObject({
      status: "failed",
      stopReason: "error: NO_RESEARCH",
      error: { code: "NO_RESEARCH", message: "the run did no research: nothing was written" },
    });
    expect(error!.details).toMatchObject({ stopReason: "no-research: nothing was written" });
    expect(outcome).toEqual({ stopReason: "no-research: nothing was written" });
  });

  it("tool calls that partly failed but gathered evidence: completed", async () => {
    const { record, error } = await runSearching(3, 2);
    expect(error).toBeNull();
    expect(record).toMatchObject({ status: "completed", stopReason: "completed" });
  });

  for (const strategy of ["graph", "minddr", "warp", "mams", "smtl"]) {
    it(`${strategy} with maxWallMs 1 makes no model call and is not completed`, async () => {
      const world = await startResearchWorld({ subtasks: 2 });
      try {
        // Every reading of this clock is a millisecond later than the one before: the one
        // millisecond of wall time has passed by the first check, however fast the run gets
        // there (with the strategy's modules already loaded by an earlier test file it may take
        // less than a millisecond of real time).
        let tick = 0;
        const clock = { ...systemClock, now: () => Date.now() + ++tick };
        const result = await world.research(
          { query: "How is topic adoption changing?", strategy, budget: { maxWallMs: 1 } },
          { clock },
        );
        expect(world.model.requests).toHaveLength(0);
        expect(result.record).toMatchObject({
          status: "failed",
          stopReason: "budget:wallTime",
          usage: { llmCalls: 0 },
          error: { code: "BUDGET_EXCEEDED" },
        });
      } finally {
        await world.close();
      }
    });
  }

  it("dossier research whose every search fails exits 1 with NO_EVIDENCE, not 0", async () => {
    const world = await startResearchWorld({
      subtasks: 3,
      searchFailsWith: 500,
      expectCalls: { planner: 1, "search-step": 3, outline: 1 },
    });
    try {
      const r = await dossierInWorld(
        ["research", "What drives topic growth?", "--strategy", "minddr", "--json"],
        world,
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/NO_EVIDENCE.*every one of its \d+ tool call\(s\) failed \(web_search: /);
      const summary = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as {
        status: string;
        stopReason: string;
      };
      expect(summary).toMatchObject({ status: "failed", stopReason: "error: NO_EVIDENCE" });
    } finally {
      await world.close();
    }
  });

  it("dossier research --max-minutes near zero exits 1 with the budget stop, not 0", async () => {
    const world = await startResearchWorld({ subtasks: 2 });
    try {
      const r = await dossierInWorld(
        [
          "research",
          "How is topic adoption changing?",
          "--strategy",
          "minddr",
          "--max-minutes",
          "0.00001",
          "--json",
        ],
        world,
      );
      expect(r.code).toBe(1);
      // 0.6 ms of wall time: the clock (whole milliseconds) may not have moved when the planner
      // is first asked, so at most that one call goes out; no research follows it either way.
      expect(world.model.requests.length).toBeLessThanOrEqual(1);
      const summary = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as {
        stopReason: string;
        llmCalls: number;
        toolCalls: number;
      };
      expect(summary).toMatchObject({ stopReason: "budget:wallTime", toolCalls: 0 });
      expect(summary.llmCalls).toBe(world.model.requests.length);
    } finally {
      await world.close();
    }
  });
});
