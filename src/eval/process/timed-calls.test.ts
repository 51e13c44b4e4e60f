import { describe, expect, it } from "vitest";
import type { DossierEvent } from "../../core/events.ts";
import { timedCalls } from "./timed-calls.ts";

const T = "search:T-1";

/** Events numbered in order, one millisecond apart. */
const log = (items: Record<string, unknown>[]): DossierEvent[] =>
  items.map((e, i) => ({
    runId: "r",
    seq: i + 1,
    ts: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
    scope: T,
    ...e,
  })) as unknown as DossierEvent[];

const start = (callId: string, tool: string, parentCallId?: string) => ({
  type: "tool-start",
  callId,
  tool,
  provider: tool === "crawl_page" ? "reader" : "http",
  args: {},
  ...(parentCallId ? { parentCallId } : {}),
});
const end = (callId: string, tool: string) => ({
  type: "tool-end",
  callId,
  tool,
  provider: tool === "crawl_page" ? "reader" : "http",
  ok: true,
  cached: false,
  latencyMs: 0,
});
const read = (callId: string) => [
  { type: "llm-start", callId, role: "reader", model: "m", key: callId, attempt: 1, estimatedInputTokens: 1 },
  {
    type: "llm-end",
    callId,
    role: "reader",
    model: "m",
    key: callId,
    ok: true,
    replayed: false,
    inputTokens: 1,
    outputTokens: 1,
    costUsd: null,
    latencyMs: 0,
    formatErrors: 0,
    retries: 0,
  },
];

const shape = (events: DossierEvent[]) =>
  timedCalls(events).map((c) => [c.callId, c.nested.map((n) => n.callId)]);

describe("timedCalls", () => {
  it("folds each page's fetch and read into the crawl they name when a step crawls pages at once", () => {
    const events = log([
      start("C1", "crawl_page"),
      start("C2", "crawl_page"),
      start("F1", "fetch_page", "C1"),
      start("F2", "fetch_page", "C2"),
      // The second page answers first, and its read starts; then the first page's.
      end("F2", "fetch_page"),
      // The reads name their crawl; the second page's is asked first, after the first's fetch.
      end("F1", "fetch_page"),
      { ...read("R2")[0]!, parentCallId: "C2" },
      { ...read("R1")[0]!, parentCallId: "C1" },
      read("R2")[1]!,
      end("C2", "crawl_page"),
      read("R1")[1]!,
      end("C1", "crawl_page"),
    ]);
    expect(shape(events)).toEqual([
      ["C1", ["F1", "R1"]],
      ["C2", ["F2", "R2"]],
    ]);
  });

  it("without the crawl named in the log, gives each enclosing crawl one fetch and the read to the crawl just fetched", () => {
    const events = log([
      start("C1", "crawl_page"),
      start("C2", "crawl_page"),
      start("F1", "fetch_page"),
      start("F2", "fetch_page"),
      end("F1", "fetch_page"),
      end("F2", "fetch_page"),
      ...read("R2"),
      end("C1", "crawl_page"),
      ...read("R1"),
      end("C2", "crawl_page"),
    ]);
    // F1 goes to the latest crawl without a fetch (C2), F2 to C1; R2 follows the fetch answered
    // last (F2, C1); R1 is read inside C2 alone.
    expect(shape(events)).toEqual([
      ["C1", ["F2", "R2"]],
      ["C2", ["F1", "R1"]],
    ]);
  });
});
