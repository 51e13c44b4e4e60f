/**
 * Usage counts every request the provider received: in the loopback research world, the model
 * server answers the outline's first request with 429, a section's first with 500 (both then
 * answered), and every request of the coherence pass with 500 (the call fails, the run goes
 * on without it). The run reports as many model calls as the server received; each failed
 * request is on its llm-retry or llm-end event, at no tokens and no cost (an error answer is not
 * billed), so the totals stay known; and a resume of the run counts them from its log.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { Reply } from "../../test/fake-openai/types.ts";
import type { ChatBody, ScriptRole } from "../../test/research/model-script.ts";
import { perSourceSections, REFRESH_PARENT } from "../../test/research/refresh-answers.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import type { EventOf } from "../core/events.ts";
import { createDossier, type Dossier } from "./dossier.ts";
import { earlierCalls, usageOfCalls } from "./earlier-usage.ts";

let world: ResearchWorld | undefined;
let dossier: Dossier | undefined;
afterEach(async () => {
  await dossier?.close();
  await world?.close();
  dossier = undefined;
  world = undefined;
});

/** An error answer the client may retry at once. */
const failWith = (status: number): Reply => ({ kind: "error", status, headers: { "retry-after-ms": "0" } });

describe("usage counts every request the provider received", () => {
  it("a retried request is a call, and a failed call's requests are calls", { timeout: 60_000 }, async () => {
    const seen: Partial<Record<ScriptRole, number>> = {};
    const override = (role: ScriptRole, body: ChatBody): Reply | undefined => {
      const n = (seen[role] ?? 0) + 1;
      seen[role] = n;
      if (role === "outline" && n === 1) return failWith(429);
      if (role === "section" && n === 1) return failWith(500);
      if (role === "coherence") return failWith(500);
      return perSourceSections(role, body);
    };
    world = await startResearchWorld({
      subtasks: 4,
      override,
      price: { inputPerMTok: 1, outputPerMTok: 10 },
      // The outline and one section asked twice; the coherence pass three times (two retries).
      expectCalls: { ...REFRESH_PARENT, outline: 2, section: 5, coherence: 3 },
    });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    const result = await dossier.research("How is topic adoption changing?", { strategy: "minddr" }).done;
    expect(result.status).toBe("completed");

    const received = world.model.requests.length;
    expect(received).toBe(19 + 1 + 1 + 2);
    const usage = result.record.usage!;
    expect(usage.llmCalls).toBe(received);
    // Error answers count no tokens and no cost: the totals stay known, and are the answered calls'.
    const events = await dossier.runs.events(result.runId);
    const ends = events.filter((e): e is EventOf<"llm-end"> => e.type === "llm-end");
    const retries = events.filter((e): e is EventOf<"llm-retry"> => e.type === "llm-retry");
    expect(ends).toHaveLength(19);
    const none = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
    expect(ends.filter((e) => !e.ok).map((e) => [e.error?.code, e.retries, e.request])).toEqual([
      ["PROVIDER_ERROR", 2, none],
    ]);
    // (A connection the server closed while idle fails before any answer: retried, not counted.)
    expect(retries.filter((e) => e.request).map((e) => [e.error.code, e.request])).toEqual([
      ["RATE_LIMITED", none],
      ["PROVIDER_ERROR", none],
      ["PROVIDER_ERROR", none],
      ["PROVIDER_ERROR", none],
    ]);
    const answered = ends.filter((e) => e.ok);
    const sum = (key: "inputTokens" | "outputTokens" | "costUsd") =>
      answered.reduce((s, e) => s + (e[key] as number), 0);
    expect(usage.inputTokens).toBe(sum("inputTokens"));
    expect(usage.outputTokens).toBe(sum("outputTokens"));
    expect(usage.costUsd).toBeCloseTo(sum("costUsd"), 12);
    const runEnd = events.find((e): e is EventOf<"run-end"> => e.type === "run-end")!;
    expect(runEnd.usage?.llmCalls).toBe(received);

    // A resume reads the same count from the log: every request, none journaled twice.
    const earlier = earlierCalls(events, new Set());
    expect(earlier.lost).toEqual([]);
    expect(usageOfCalls(earlier.unjournaled).llmCalls).toBe(received);
  });
});
