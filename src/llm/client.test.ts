import { describe, expect, it } from "vitest";
import { instantClock } from "../../test/scripted/clocks.ts";
import { scriptedRegistry } from "../../test/scripted/harness.ts";
import { type ScriptStep, scriptedModel } from "../../test/scripted/scripted-model.ts";
import { BudgetLedger } from "../core/budget.ts";
import type { EventInput } from "../core/events.ts";
import { createMemoryJournal } from "../core/journal.ts";
import { LlmClient, type LlmClientOptions } from "./client.ts";

const PRICE = { "openai-compatible:scripted-default": { inputPerMTok: 1, outputPerMTok: 10 } };

function setup(steps: ScriptStep[], extra: Partial<LlmClientOptions> = {}, priced = false) {
  const model = scriptedModel(steps);
  const events: EventInput[] = [];
  const clock = instantClock();
  const client = new LlmClient({
    registry: scriptedRegistry({ default: model }, priced ? { prices: PRICE } : {}),
    clock,
    emit: (e) => events.push(e),
    random: () => 0.5,
    ...extra,
  });
  return { model, events, client, clock };
}

describe("LlmClient", () => {
  it("records usage and cost from the price table and emits llm-start/llm-end", async () => {
    const { client, events } = setup([{ text: "hello", usage: { input: 1000, output: 100 } }], {}, true);
    const result = await client.generate({ role: "writer", prompt: "hi" });
    expect(result.text).toBe("hello");
    expect(result.usage).toEqual({
      inputTokens: 1000,
      outputTokens: 100,
      costUsd: (1000 * 1 + 100 * 10) / 1e6,
    });
    expect(events.map((e) => e.type)).toEqual(["llm-start", "llm-end"]);
    expect(events[1]).toMatchObject({
      ok: true,
      role: "writer",
      model: "openai-compatible:scripted-default",
      inputTokens: 1000,
    });
  });

  it("sends each role's stated sampling where a request sets none, and a request's own over it", async () => {
    const { client, model } = setup([{ text: "a" }, { text: "b" }, { text: "c" }], {
      sampling: { planner: { temperature: 1, topP: 0.9, maxOutputTokens: 8192 } },
    });
    await client.generate({ role: "planner", prompt: "x" });
    await client.generate({ role: "planner", prompt: "y", temperature: 0.2, maxOutputTokens: 100 });
    await client.generate({ role: "writer", prompt: "z" });
    const sent = model.calls.map((c) => [c.options.temperature, c.options.topP, c.options.maxOutputTokens]);
    expect(sent).toEqual([
      [1, 0.9, 8192],
      [0.2, 0.9, 100],
      [undefined, undefined, 4096],
    ]);
  });

  it("keeps unknown token counts and unknown prices as null, never 0", async () => {
    const { client } = setup([
      { text: "a", usage: null },
      { text: "b", usage: { input: 3, output: 4 } },
    ]);
    const unknownTokens = await client.generate({ role: "default", prompt: "x" });
    expect(unknownTokens.usage).toEqual({ inputTokens: null, outputTokens: null, costUsd: null });
    const unknownPrice = await client.generate({ role: "default", prompt: "y" });
    expect(unknownPrice.usage).toEqual({ inputTokens: 3, outputTokens: 4, costUsd: null });
  });

  it("stops calling the model when the token budget is used up", async () => {
    const budget = new BudgetLedger({ limits: { maxTokens: 2000 }, clock: instantClock() });
    const { client, model } = setup(
      [
        { text: "a", usage: { input: 900, output: 500 } },
        { text: "b", usage: { input: 300, output: 200 } },
      ],
      { budget, defaultMaxOutputTokens: 500 },
    );
    await client.generate({ role: "default", prompt: "x".repeat(300) });
    const second = await client.generate({ role: "default", prompt: "x".repeat(300) });
    expect(second.text).toBe("b");
    await expect(client.generate({ role: "default", prompt: "x".repeat(300) })).rejects.toMatchObject({
      code: "BUDGET_EXCEEDED",
      details: { limit: "tokens" },
    });
    expect(model.calls).toHaveLength(2);
    expect(budget.snapshot().used.tokens).toBe(1900);
    expect(budget.snapshot().used.tokens).toBeLessThanOrEqual(2000);
  });

  it("lowers maxOutputTokens to what the budget allows", async () => {
    const budget = new BudgetLedger({ limits: { maxTokens: 1000 }, clock: instantClock() });
    const { client, model } = setup([{ text: "a", usage: { input: 100, output: 50 } }], { budget });
    await client.generate({ role: "default", prompt: "p", maxOutputTokens: 4000 });
    const cap = model.calls[0]!.options.maxOutputTokens!;
    expect(cap).toBeLessThan(1000);
    expect(cap).toBeGreaterThan(900);
  });

  it("retries a 429 after the server's Retry-After and then succeeds", async () => {
    const { client, model, clock, events } = setup([
      { error: { status: 429, headers: { "retry-after": "3" } } },
      { error: { status: 503 } },
      "ok",
    ]);
    const result = await client.generate({ role: "default", prompt: "x" });
    expect(result.text).toBe("ok");
    expect(model.calls).toHaveLength(3);
    expect(clock.sleeps).toEqual([3000, 2000]);
    const retries = events.filter((e) => e.type === "llm-retry");
    expect(retries.map((e) => (e.type === "llm-retry" ? e.error.code : ""))).toEqual([
      "RATE_LIMITED",
      "PROVIDER_ERROR",
    ]);
    expect(events.at(-1)).toMatchObject({ type: "llm-end", ok: true, retries: 2 });
  });

  it("surfaces a typed error after the configured retries", async () => {
    const { client, model, events } = setup([{ error: { status: 500 } }, { error: { status: 500 } }], {
      retry: { maxRetries: 1 },
    });
    const error = await client.generate({ role: "default", prompt: "x" }).catch((e) => e);
    expect(error).toMatchObject({ code: "PROVIDER_ERROR", details: { statusCode: 500 } });
    expect(model.calls).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: "llm-end", ok: false, error: { code: "PROVIDER_ERROR" } });
  });

  it("does not retry a 400", async () => {
    const { client, model } = setup([{ error: { status: 400, message: "bad request" } }]);
    await expect(client.generate({ role: "default", prompt: "x" })).rejects.toMatchObject({
      code: "PROVIDER_ERROR",
    });
    expect(model.calls).toHaveLength(1);
  });

  it("makes no call once the run is cancelled", async () => {
    const controller = new AbortController();
    const { client, model } = setup([], { signal: controller.signal });
    controller.abort("user pressed Ctrl-C");
    await expect(client.generate({ role: "default", prompt: "x" })).rejects.toMatchObject({
      code: "CANCELLED",
      message: "cancelled: user pressed Ctrl-C",
    });
    expect(model.calls).toHaveLength(0);
  });

  it("replays completed calls from the journal by key, in order, without calling the model", async () => {
    const journal = createMemoryJournal();
    const first = setup(["A1", "B", "A2"], { journal });
    const a1 = await first.client.generate({ role: "default", prompt: "same" });
    const b = await first.client.generate({ role: "default", prompt: "other" });
    const a2 = await first.client.generate({ role: "default", prompt: "same" });
    expect([a1.text, b.text, a2.text]).toEqual(["A1", "B", "A2"]);
    expect(new Set([a1.key, b.key, a2.key]).size).toBe(3);
    expect(journal.size()).toBe(3);

    // A resumed run: same requests in the same order get the stored answers; a new one calls the model.
    const resumed = setup(["fresh"], { journal });
    const r1 = await resumed.client.generate({ role: "default", prompt: "same" });
    const r2 = await resumed.client.generate({ role: "default", prompt: "other" });
    const r3 = await resumed.client.generate({ role: "default", prompt: "same" });
    const r4 = await resumed.client.generate({ role: "default", prompt: "new" });
    expect([r1.text, r2.text, r3.text, r4.text]).toEqual(["A1", "B", "A2", "fresh"]);
    expect([r1.replayed, r4.replayed]).toEqual([true, false]);
    expect(r1.usage).toEqual(a1.usage);
    expect(resumed.model.calls).toHaveLength(1);
  });
});
