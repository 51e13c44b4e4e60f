import { describe, expect, it } from "vitest";
import type { DossierEvent } from "../core/events.ts";
import { applyEvent, createProgressLine, formatProgress, initialProgress } from "./progress.ts";

const stamp = (seq: number) => ({ runId: "r", seq, ts: "2026-11-22T00:00:00.000Z" });
const events = [
  { type: "phase", phase: "searching", detail: "3 subtasks" },
  {
    type: "plan-update",
    iteration: 0,
    graph: { nodes: [{ type: "search" }, { type: "search" }, { type: "search" }, { type: "report" }] },
  },
  { type: "source-add", source: {} },
  { type: "source-add", source: {} },
  { type: "node-end", nodeId: "T-1", status: "done" },
  {
    type: "llm-end",
    callId: "L1",
    role: "planner",
    model: "m",
    key: "k",
    ok: true,
    replayed: false,
    inputTokens: 1200,
    outputTokens: 300,
    costUsd: 0.002,
    latencyMs: 5,
    formatErrors: 0,
    retries: 0,
  },
  {
    type: "llm-end",
    callId: "L2",
    role: "searcher",
    model: "m",
    key: "k",
    ok: true,
    replayed: false,
    inputTokens: null,
    outputTokens: null,
    costUsd: null,
    latencyMs: 5,
    formatErrors: 0,
    retries: 0,
  },
  { type: "tool-end", callId: "C1", tool: "web_search", ok: true, cached: false, latencyMs: 3 },
].map((e, i) => ({ ...e, ...stamp(i + 1) })) as DossierEvent[];

describe("progress line", () => {
  it("folds events into phase, subtasks, sources, calls, tokens and cost, marking unknowns", () => {
    const state = events.reduce(applyEvent, initialProgress());
    expect(formatProgress(state)).toBe(
      "searching (3 subtasks) · subtasks 1/3 · 2 sources · 2 model / 1 tool calls · 1.2k+300+? tokens · ≥$0.002",
    );
  });

  it("redraws one line and clears it at the end", () => {
    const out: string[] = [];
    const line = createProgressLine((t) => out.push(t), 80);
    for (const e of events) line.update(e);
    line.done();
    expect(out.every((t) => t.startsWith("\r\x1b[2K"))).toBe(true);
    expect(out.at(-1)).toBe("\r\x1b[2K");
    expect(Math.max(...out.map((t) => t.length))).toBeLessThanOrEqual(80 + 5);
  });
});
