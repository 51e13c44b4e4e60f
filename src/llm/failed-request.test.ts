/**
 * A failed model request is counted when the provider received it: the classification of
 * failures, and the client over the loopback fake OpenAI server — a 500 then an answer is two
 * calls, the error answer at no tokens on its llm-retry; a 429 then a 200 whose body does not
 * parse fails the call and is two calls too, the unreadable answer at its estimate (input and
 * whole output cap, priced) on the failed call's llm-end.
 */

import { APICallError } from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../test/fake-openai/index.ts";
import { instantClock } from "../../test/scripted/clocks.ts";
import { BudgetLedger } from "../core/budget.ts";
import { DossierError } from "../core/errors.ts";
import type { EventInput } from "../core/events.ts";
import { addCallUsage, type CallUsage, emptyUsage } from "../core/usage.ts";
import { LlmClient } from "./client.ts";
import { CallTimeout, failedRequestOf } from "./errors.ts";
import { createModelRegistry } from "./registry.ts";

const apiError = (statusCode: number | undefined, cause?: unknown) =>
  new APICallError({
    message: "x",
    url: "http://model/v1",
    requestBodyValues: {},
    statusCode,
    ...(cause ? { cause } : {}),
  });

describe("which failed requests reached the provider", () => {
  it("an HTTP error is an error answer; an unreadable answer, a time limit or a cancel, no usable answer", () => {
    expect(failedRequestOf(apiError(429))).toBe("error-answer");
    expect(failedRequestOf(apiError(500))).toBe("error-answer");
    expect(failedRequestOf(apiError(200))).toBe("no-answer");
    expect(failedRequestOf(new CallTimeout(1000))).toBe("no-answer");
    expect(failedRequestOf(Object.assign(new Error("aborted"), { name: "AbortError" }))).toBe("no-answer");
    expect(failedRequestOf(new Error("Invalid JSON response"))).toBe("no-answer");
  });

  it("a connection that failed before any answer, or Dossier's own refusal, is not counted", () => {
    const reset = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
    expect(failedRequestOf(apiError(undefined, reset))).toBeNull();
    expect(failedRequestOf(new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } }))).toBeNull();
    expect(failedRequestOf(new DossierError("STORE_ERROR", "the provider limiter is closed"))).toBeNull();
    expect(failedRequestOf(new DossierError("BUDGET_EXCEEDED", "budget limit reached: cost"))).toBeNull();
  });
});

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(maxRetries: number) {
  server = await startFakeOpenAI();
  const registry = createModelRegistry({
    defaultModel: "openai-compatible:test-model",
    baseUrl: server.url,
    apiKey: "sk-local",
    prices: { "openai-compatible:test-model": { inputPerMTok: 2, outputPerMTok: 8 } },
  });
  const clock = instantClock();
  const events: EventInput[] = [];
  const budget = new BudgetLedger({ limits: {}, clock });
  let usage = emptyUsage();
  const client = new LlmClient({
    registry,
    clock,
    budget,
    emit: (e) => events.push(e),
    retry: { maxRetries },
    random: () => 0.5,
    defaultMaxOutputTokens: 500,
    onUsage: (call) => {
      usage = addCallUsage(usage, call);
    },
  });
  return { server, client, events, budget, usage: () => usage };
}

describe("the client counts every request the provider received", () => {
  it("a 500 then an answer: two calls, the error answer at no tokens on its llm-retry", async () => {
    const { server, client, events, budget, usage } = await setup(2);
    server.enqueue(
      { kind: "error", status: 500, headers: { "retry-after": "0" } },
      { kind: "text", text: "ok", usage: { prompt_tokens: 40, completion_tokens: 10 } },
    );
    const result = await client.generate({ role: "default", prompt: "How many requests?" });
    expect(result.text).toBe("ok");
    expect(server.requests).toHaveLength(2);
    expect(events.flatMap((e) => (e.type === "llm-retry" ? [e.request] : []))).toEqual([
      { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    ]);
    expect(usage()).toEqual({
      inputTokens: 40,
      outputTokens: 10,
      costUsd: (40 * 2 + 10 * 8) / 1e6,
      llmCalls: 2,
      toolCalls: 0,
    });
    expect(budget.snapshot().used).toMatchObject({ llmCalls: 2, tokens: 50 });
  });

  it("a 429 then an unreadable 200: the call fails, and counts both requests; the last, at its estimate, on its llm-end", async () => {
    const { server, client, events, budget, usage } = await setup(2);
    server.enqueue({ kind: "error", status: 429, headers: { "retry-after": "0" } }, { kind: "malformed" });
    await expect(client.generate({ role: "default", prompt: "How many requests?" })).rejects.toMatchObject({
      code: "PROVIDER_ERROR",
    });
    expect(server.requests).toHaveLength(2);
    const start = events.find((e) => e.type === "llm-start") as { estimatedInputTokens: number };
    const input = Math.ceil(start.estimatedInputTokens);
    const estimate: CallUsage = {
      inputTokens: input,
      outputTokens: 500,
      costUsd: (input * 2 + 500 * 8) / 1e6,
    };
    expect(events.flatMap((e) => (e.type === "llm-retry" ? [e.request] : []))).toEqual([
      { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "llm-end", ok: false, inputTokens: null, request: estimate });
    expect(usage()).toEqual({ ...estimate, llmCalls: 2, toolCalls: 0 });
    expect(budget.snapshot().used).toMatchObject({ llmCalls: 2, tokens: input + 500 });
  });
});
