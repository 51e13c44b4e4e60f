/**
 * `recordCalls` on a real run in the loopback research world: the same scripted smtl run with
 * and without recording writes the same report and the same events apart from the `llm-call`
 * ones; the recorded calls decode to exactly the messages the model server received; the
 * shared conversation is stored once; and no credential reaches the log.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../../test/fake-openai/types.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import type { DossierEvent } from "../core/events.ts";
import { renderMarkdown } from "../render/markdown.ts";
import { openSqliteStore } from "../store/sqlite-store.ts";
import { recordedRunFromEvents } from "../train/run-from-events.ts";

/**
 * Searches answer in the order of the number in their query, 40 ms apart, and pages after every
 * search: the concurrent tool calls of both runs end in one order, so evidence gets the same ids.
 */
const IN_ORDER = {
  searchLatencyMs: (q: string) => 40 * Number(/\d+/.exec(q)?.[0] ?? 0),
  pageLatencyMs: () => 600,
};

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const SECRET = "sk-recording-secret-0451";
const QUESTION = "Which topic saw measured growth in the 2025 survey?";

/** An event without what differs between two runs of one script (ids, times, paths, latencies). */
function normalised(event: DossierEvent): unknown {
  const { runId: _r, seq: _s, ts: _t, ...rest } = event as DossierEvent & Record<string, unknown>;
  const volatile = new Set(["latencyMs", "queueMs", "reportPaths", "paths", "recordCalls", "retries"]);
  return JSON.parse(
    JSON.stringify(rest, (key, value) =>
      volatile.has(key)
        ? undefined
        : typeof value === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:/.test(value)
          ? "<time>"
          : value,
    ),
  );
}

const chat = (request: RecordedRequest) =>
  (request.body as { messages: { role: string; content: unknown }[] }).messages.map((m) => ({
    role: m.role,
    content: typeof m.content === "string" ? m.content : JSON.stringify(m.content),
  }));

describe("recording model calls", () => {
  it("changes nothing else about a run, decodes to what the model received, and stores no secret", async () => {
    world = await startResearchWorld({
      expectCalls: { "smtl-plan": 2, "smtl-step": 4, reader: 2 },
      config: { apiKey: SECRET },
      ...IN_ORDER,
    });
    const request = {
      query: QUESTION,
      strategy: "smtl",
      // The world's model script answers smtl's short-answer mode.
      strategyOptions: { mode: "answer" },
      currentDate: "2026-03-01",
      formats: ["md" as const],
    };
    // Each run with a store of its own, so that the second reads no page from the first's cache.
    const run = async (recordCalls: boolean) => {
      const store = openSqliteStore({ home: ":memory:" });
      try {
        const result = await world!.research(
          { ...request, ...(recordCalls ? { recordCalls } : {}) },
          { store },
        );
        expect(result.record.status).toBe("completed");
        const events = await store.events.list(result.runId);
        expect(events.length).toBeGreaterThan(10);
        return { ...result, events, markdown: renderMarkdown(result.outcome!.report) };
      } finally {
        await store.close();
      }
    };
    const plain = await run(false);
    const sentBefore = world.model.requests.length;
    const recorded = await run(true);
    expect(recorded.markdown).toBe(plain.markdown);

    const calls = recorded.events.filter((e) => e.type === "llm-call");
    expect(plain.events.some((e) => e.type === "llm-call")).toBe(false);
    expect(calls).toHaveLength(recorded.events.filter((e) => e.type === "llm-end").length);
    // A transport retry (a loopback connection reset on a loaded machine) is not the run's doing.
    const stable = (events: DossierEvent[]) => events.filter((e) => e.type !== "llm-retry");
    const others = stable(recorded.events)
      .filter((e) => e.type !== "llm-call")
      .map(normalised);
    const sort = (list: unknown[]) => list.map((e) => JSON.stringify(e)).sort();
    expect(sort(others)).toEqual(sort(stable(plain.events).map(normalised)));
    expect(recorded.events.find((e) => e.type === "run-start")).toMatchObject({
      options: { recordCalls: true },
    });

    // Every decoded call is a request the model server received, message for message.
    const received = world.model.requests
      .slice(sentBefore)
      .filter((r) => r.path.endsWith("/chat/completions"))
      .map(chat);
    const rollout = recordedRunFromEvents({
      row: { id: "q1", prompt: QUESTION },
      events: recorded.events,
      report: recorded.markdown,
    });
    expect(rollout.calls).toHaveLength(received.length);
    for (const call of rollout.calls) {
      const messages = call.messages.map((m) => ({ role: m.role, content: m.content }));
      expect(received).toContainEqual(messages);
      expect(call.completion.length).toBeGreaterThan(0);
      expect(call.usage.inputTokens).not.toBeNull();
    }
    // The agent's second step continues its first: stored as a reference, not repeated.
    const searcher = calls.filter((e) => e.type === "llm-call" && e.role === "searcher");
    expect(searcher.some((e) => e.type === "llm-call" && e.prefix !== undefined)).toBe(true);
    const storedChars = JSON.stringify(calls).length;
    const fullChars = JSON.stringify(rollout.calls.map((c) => c.messages)).length;
    expect(storedChars).toBeLessThan(fullChars);

    // The endpoint's key and headers are nowhere in the log.
    const log = JSON.stringify(recorded.events);
    expect(log).not.toContain(SECRET);
    expect(log.toLowerCase()).not.toContain("authorization");
    expect(world.model.requests.at(-1)!.headers.authorization).toContain(SECRET);
  }, 60_000);
});
