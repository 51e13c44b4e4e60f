/**
 * The real provider path: registry → AI SDK openai-compatible provider → HTTP → the in-process
 * fake OpenAI-compatible server on loopback. No mock model is involved.
 */

import { generateText, streamText, tool } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type FakeOpenAI, startFakeOpenAI } from "../../test/fake-openai/index.ts";
import { instantClock } from "../../test/scripted/clocks.ts";
import type { EventInput } from "../core/events.ts";
import { LlmClient } from "./client.ts";
import { createModelRegistry } from "./registry.ts";
import { generateStructured } from "./structured.ts";

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(retry = { maxRetries: 2 }) {
  server = await startFakeOpenAI();
  const registry = createModelRegistry({
    defaultModel: "openai-compatible:test-model",
    baseUrl: server.url,
    apiKey: "sk-local",
    prices: { "openai-compatible:test-model": { inputPerMTok: 2, outputPerMTok: 8 } },
  });
  const events: EventInput[] = [];
  const clock = instantClock();
  const client = new LlmClient({ registry, clock, emit: (e) => events.push(e), retry, random: () => 0.5 });
  return { server, registry, client, events, clock };
}

describe("provider path over HTTP", () => {
  it("makes a plain call with usage and cost", async () => {
    const { server, client } = await setup();
    server.enqueue({
      kind: "text",
      text: "plain answer",
      usage: { prompt_tokens: 120, completion_tokens: 30 },
    });
    const result = await client.generate({ role: "default", system: "be brief", prompt: "question?" });
    expect(result.text).toBe("plain answer");
    expect(result.usage).toEqual({ inputTokens: 120, outputTokens: 30, costUsd: (120 * 2 + 30 * 8) / 1e6 });
    expect(server.requests).toHaveLength(1);
    const body = server.requests[0]!.body as { model: string; messages: { role: string; content: string }[] };
    expect(body.model).toBe("test-model");
    expect(body.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "question?" },
    ]);
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-local");
  });

  it("streams a call and receives usage", async () => {
    const { server, registry } = await setup();
    server.enqueue({
      kind: "text",
      text: "streamed in several pieces",
      usage: { prompt_tokens: 9, completion_tokens: 5 },
    });
    const result = streamText({ model: registry.forRole("writer").model, prompt: "go", maxRetries: 0 });
    const deltas: string[] = [];
    for await (const d of result.textStream) deltas.push(d);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("streamed in several pieces");
    const usage = await result.usage;
    expect([usage.inputTokens, usage.outputTokens]).toEqual([9, 5]);
    expect((server.requests[0]!.body as { stream: boolean }).stream).toBe(true);
  });

  it("receives a tool call", async () => {
    const { server, registry } = await setup();
    server.enqueue({
      kind: "tool-calls",
      calls: [{ name: "web_search", arguments: { query: "solid-state batteries" } }],
    });
    const result = await generateText({
      model: registry.forRole("searcher").model,
      prompt: "search",
      tools: {
        web_search: tool({ description: "search the web", inputSchema: z.object({ query: z.string() }) }),
      },
      maxRetries: 0,
    });
    expect(result.toolCalls.map((c) => [c.toolName, c.input])).toEqual([
      ["web_search", { query: "solid-state batteries" }],
    ]);
    const sent = server.requests[0]!.body as { tools: { function: { name: string } }[] };
    expect(sent.tools[0]!.function.name).toBe("web_search");
  });

  it("retries a 429 after its Retry-After and succeeds", async () => {
    const { server, client, clock, events } = await setup();
    server.enqueue(
      { kind: "error", status: 429, headers: { "retry-after": "1" } },
      { kind: "text", text: "after wait" },
    );
    const result = await client.generate({ role: "default", prompt: "x" });
    expect(result.text).toBe("after wait");
    expect(server.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([1000]);
    expect(events.filter((e) => e.type === "llm-retry")).toMatchObject([{ error: { code: "RATE_LIMITED" } }]);
  });

  it("surfaces a 500 as a typed error after the configured retries", async () => {
    const { server, client } = await setup({ maxRetries: 2 });
    server.enqueue(
      { kind: "error", status: 500 },
      { kind: "error", status: 500 },
      { kind: "error", status: 500 },
    );
    const error = await client.generate({ role: "default", prompt: "x" }).catch((e) => e);
    expect(error).toMatchObject({
      name: "DossierError",
      code: "PROVIDER_ERROR",
      details: { statusCode: 500 },
    });
    expect(server.requests).toHaveLength(3);
    expect(server.unexpected).toHaveLength(0);
  });

  it("treats a malformed body as a provider error without crashing", async () => {
    const { server, client } = await setup({ maxRetries: 0 });
    server.enqueue({ kind: "malformed" });
    await expect(client.generate({ role: "default", prompt: "x" })).rejects.toMatchObject({
      code: "PROVIDER_ERROR",
    });
  });

  it("repairs a structured answer over HTTP", async () => {
    const { server, client, events } = await setup();
    server.enqueue(
      { kind: "text", text: "<think>hmm</think> not json" },
      { kind: "text", text: '```json\n{"ok": true}\n```' },
    );
    const result = await generateStructured(client, {
      role: "default",
      schema: z.object({ ok: z.boolean() }),
      prompt: "p",
    });
    expect(result.value).toEqual({ ok: true });
    expect(events.filter((e) => e.type === "format-error")).toHaveLength(1);
  });
});
