/**
 * Native structured output on the real provider path: registry → AI SDK openai-compatible
 * provider → HTTP → the fake OpenAI-compatible server, which records what was sent.
 */

import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type FakeOpenAI, startFakeOpenAI } from "../../test/fake-openai/index.ts";
import { instantClock } from "../../test/scripted/clocks.ts";
import type { EventInput } from "../core/events.ts";
import { LlmClient } from "./client.ts";
import { createModelRegistry, type ModelRegistryOptions } from "./registry.ts";
import { generateStructured } from "./structured.ts";
import type { StructuredOutputMode } from "./structured-mode.ts";

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const schema = z.object({
  verdict: z.enum(["yes", "no"]).describe("the answer"),
  reasons: z.array(z.string()).default([]),
});

interface WireBody {
  response_format?: { type: string; json_schema?: { name: string; strict: boolean; schema: unknown } };
  messages: { role: string; content: string }[];
}

async function setup(model: string, structuredOutput?: Record<string, StructuredOutputMode>) {
  server = await startFakeOpenAI();
  const options: ModelRegistryOptions = { defaultModel: model, baseUrl: server.url, apiKey: "sk-local" };
  const registry = createModelRegistry(structuredOutput ? { ...options, structuredOutput } : options);
  const events: EventInput[] = [];
  const client = new LlmClient({
    registry,
    clock: instantClock(),
    emit: (e) => events.push(e),
    retry: { maxRetries: 0 },
  });
  const ask = () => generateStructured(client, { role: "judge", schema, system: "Judge.", prompt: "Is it?" });
  return { server, registry, client, events, ask };
}

const body = (s: FakeOpenAI, i: number) => s.requests[i]!.body as WireBody;

describe("native structured output over HTTP", () => {
  // (Ollama's native API, with its own `format`, is in ollama.test.ts.)
  it.each(["openai-compatible:served-model"])(
    "%s sends response_format json_schema with the answer's schema",
    async (model) => {
      const { server, ask } = await setup(model);
      server.enqueue({ kind: "text", text: '{"verdict":"yes","reasons":["clear"]}' });
      const result = await ask();
      expect(result.value).toEqual({ verdict: "yes", reasons: ["clear"] });
      const format = body(server, 0).response_format;
      expect(format).toMatchObject({ type: "json_schema", json_schema: { name: "answer", strict: false } });
      expect(format!.json_schema!.schema).toMatchObject({
        type: "object",
        properties: { verdict: { enum: ["yes", "no"], description: "the answer" } },
        required: ["verdict"],
      });
      // These servers only constrain decoding, so the schema also stays in the instructions
      // (as a compact type): models that only see text know the fields.
      expect(body(server, 0).messages[0]!.content).toContain('verdict: "yes" | "no" // the answer');
    },
  );

  it("still repairs an invalid answer in native mode", async () => {
    const { server, ask, events } = await setup("openai-compatible:served-model");
    server.enqueue({ kind: "text", text: '{"verdict":"maybe"}' }, { kind: "text", text: '{"verdict":"no"}' });
    expect((await ask()).value).toEqual({ verdict: "no", reasons: [] });
    expect(body(server, 1).response_format?.type).toBe("json_schema");
    expect(events.filter((e) => e.type === "format-error")).toHaveLength(1);
  });

  it("falls back to prompt mode when the server rejects json_schema, and remembers it for the model", async () => {
    const { server, ask, events, registry } = await setup("openai-compatible:old-server");
    server.enqueue(
      {
        kind: "error",
        status: 400,
        body: {
          error: {
            message: "response_format type json_schema is not supported",
            type: "invalid_request_error",
          },
        },
      },
      { kind: "text", text: '{"verdict":"yes"}' },
      { kind: "text", text: '{"verdict":"no"}' },
    );
    expect((await ask()).value).toEqual({ verdict: "yes", reasons: [] });
    expect(body(server, 0).response_format?.type).toBe("json_schema");
    expect(body(server, 1).response_format).toBeUndefined();
    expect(events.filter((e) => e.type === "warning")).toMatchObject([
      { code: "STRUCTURED_OUTPUT_FALLBACK" },
    ]);
    expect(registry.forRole("judge").structuredOutput).toBe("prompt");

    // The next structured call goes straight to prompt mode, without a second warning.
    expect((await ask()).value).toEqual({ verdict: "no", reasons: [] });
    expect(body(server, 2).response_format).toBeUndefined();
    expect(server.requests).toHaveLength(3);
    expect(events.filter((e) => e.type === "warning")).toHaveLength(1);
  });

  it("does not fall back on an unrelated 400", async () => {
    const { server, ask, registry } = await setup("openai-compatible:served-model");
    server.enqueue({
      kind: "error",
      status: 400,
      body: { error: { message: "context length exceeded", type: "invalid_request_error" } },
    });
    await expect(ask()).rejects.toMatchObject({ code: "PROVIDER_ERROR" });
    expect(server.requests).toHaveLength(1);
    expect(registry.forRole("judge").structuredOutput).toBe("native");
  });

  it("asks in the prompt only for a model configured with structuredOutput: prompt", async () => {
    const { server, ask } = await setup("openai-compatible:served-model", {
      "openai-compatible:served-model": "prompt",
    });
    server.enqueue({ kind: "text", text: '```json\n{"verdict":"yes"}\n```' });
    expect((await ask()).value).toEqual({ verdict: "yes", reasons: [] });
    expect(body(server, 0).response_format).toBeUndefined();
    expect(body(server, 0).messages[0]!.content).toContain('verdict: "yes" | "no" // the answer');
  });

  it("sends plain calls without a response format", async () => {
    const { server, client } = await setup("openai-compatible:served-model");
    server.enqueue({ kind: "text", text: "prose" });
    await client.generate({ role: "writer", prompt: "write" });
    expect(body(server, 0).response_format).toBeUndefined();
  });
});
