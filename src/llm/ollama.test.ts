/**
 * `ollama:` models through Ollama's own API: registry → ollama-ai-provider-v2 → HTTP → a
 * loopback server answering `/api/chat` as Ollama does (non-streaming JSON with
 * `prompt_eval_count`/`eval_count`, errors as `{"error": …}`). The requests are checked for the
 * context length (`options.num_ctx`) and the other runtime options Ollama reads.
 */

import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { instantClock } from "../../test/scripted/clocks.ts";
import type { EventInput } from "../core/events.ts";
import { configSchema } from "../runtime/config.ts";
import { registryFromConfig } from "../runtime/models.ts";
import { LlmClient } from "./client.ts";
import { DEFAULT_OLLAMA_NUM_CTX, ollamaApiUrl } from "./ollama.ts";
import { createModelRegistry, type ModelRegistryOptions } from "./registry.ts";
import { generateStructured } from "./structured.ts";

interface OllamaRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: {
    model: string;
    messages: { role: string; content: string }[];
    stream: boolean;
    format?: unknown;
    options?: Record<string, unknown>;
  };
}

/** A reply: the assistant's text, or an HTTP error with Ollama's error body. */
type Reply = { content: string } | { status: number; error: string };

let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** Starts the loopback Ollama; answers the queued replies in order. */
async function fakeOllama(replies: Reply[]) {
  const requests: OllamaRequest[] = [];
  server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw) as OllamaRequest["body"];
    requests.push({ path: req.url ?? "", headers: req.headers, body });
    const reply = replies.shift();
    res.setHeader("content-type", "application/json; charset=utf-8");
    if (!reply || req.url !== "/api/chat" || req.method !== "POST") {
      res.statusCode = 404;
      res.end(JSON.stringify({ error: "unexpected request" }));
      return;
    }
    if ("error" in reply) {
      res.statusCode = reply.status;
      res.end(JSON.stringify({ error: reply.error }));
      return;
    }
    res.end(
      JSON.stringify({
        model: body.model,
        created_at: "2026-11-26T10:00:00.000000Z",
        message: { role: "assistant", content: reply.content },
        done_reason: "stop",
        done: true,
        total_duration: 1_200_000_000,
        load_duration: 2_000_000,
        prompt_eval_count: 42,
        prompt_eval_duration: 300_000_000,
        eval_count: 7,
        eval_duration: 800_000_000,
      }),
    );
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return { requests, origin: `http://127.0.0.1:${port}` };
}

function client(options: ModelRegistryOptions) {
  const events: EventInput[] = [];
  const llm = new LlmClient({
    registry: createModelRegistry(options),
    clock: instantClock(),
    emit: (e) => events.push(e),
    retry: { maxRetries: 0 },
  });
  return { llm, events };
}

describe("ollama: models over Ollama's API", () => {
  it("sends num_ctx from contextWindows with the output cap and sampling as Ollama's options", async () => {
    const ollama = await fakeOllama([{ content: "a local answer" }]);
    const { llm } = client({
      defaultModel: "ollama:qwen3:8b",
      // The OpenAI-compatible address of the same server: the native API is used.
      baseUrl: `${ollama.origin}/v1`,
      contextWindows: { "ollama:qwen3:8b": 32_768 },
    });
    const result = await llm.generate({
      role: "default",
      system: "be brief",
      prompt: "question?",
      maxOutputTokens: 300,
      temperature: 0.2,
    });
    expect(result.text).toBe("a local answer");
    expect(result.usage).toMatchObject({ inputTokens: 42, outputTokens: 7 });
    expect(ollama.requests).toHaveLength(1);
    const { path, body } = ollama.requests[0]!;
    expect(path).toBe("/api/chat");
    expect(body).toMatchObject({ model: "qwen3:8b", stream: false });
    expect(body.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "question?" },
    ]);
    expect(body.options).toEqual({ num_ctx: 32_768, num_predict: 300, temperature: 0.2 });
  });

  it("sends the default num_ctx when none is configured; a key travels as a bearer token", async () => {
    const ollama = await fakeOllama([{ content: "ok" }]);
    const { llm } = client({
      defaultModel: "ollama:llama3.1:8b",
      baseUrl: ollama.origin,
      apiKey: "proxy-key",
    });
    expect(llm.resolve("default").contextWindow).toBe(DEFAULT_OLLAMA_NUM_CTX);
    await llm.generate({ role: "default", prompt: "hi" });
    const request = ollama.requests[0]!;
    expect(request.body.model).toBe("llama3.1:8b");
    expect(request.body.options?.num_ctx).toBe(DEFAULT_OLLAMA_NUM_CTX);
    expect(request.headers.authorization).toBe("Bearer proxy-key");
  });

  it("asks for structured output with Ollama's format (the JSON schema) and repairs a sloppy answer", async () => {
    const ollama = await fakeOllama([{ content: "{'verdict': 'yes', 'sure': True,}" }]);
    const { llm, events } = client({ defaultModel: "ollama:qwen3:8b", baseUrl: ollama.origin });
    const result = await generateStructured(llm, {
      role: "default",
      schema: z.object({ verdict: z.enum(["yes", "no"]), sure: z.boolean() }),
      prompt: "is it?",
    });
    expect(result).toMatchObject({ value: { verdict: "yes", sure: true }, calls: 1, repaired: true });
    expect(ollama.requests[0]!.body.format).toMatchObject({
      type: "object",
      properties: { verdict: { enum: ["yes", "no"] } },
      required: ["verdict", "sure"],
    });
    // Ollama only constrains decoding: the model also reads the schema in the instructions.
    expect(ollama.requests[0]!.body.messages[0]!.content).toContain('verdict: "yes" | "no"');
    expect(ollama.requests[0]!.body.options?.num_ctx).toBe(DEFAULT_OLLAMA_NUM_CTX);
    expect(events.filter((e) => e.type === "format-repair")).toHaveLength(1);
  });

  it("turns Ollama's error answer into a provider error that names it", async () => {
    const ollama = await fakeOllama([
      { status: 404, error: "model 'qwen9:1b' not found, try pulling it first" },
    ]);
    const { llm } = client({ defaultModel: "ollama:qwen9:1b", baseUrl: ollama.origin });
    await expect(llm.generate({ role: "default", prompt: "hi" })).rejects.toMatchObject({
      message: expect.stringContaining("not found, try pulling it first"),
    });
  });

  it("reads contextWindows from the configuration", () => {
    const config = configSchema.parse({
      model: "ollama:qwen3:8b",
      models: { writer: "ollama:qwen3:32b" },
      contextWindows: { "ollama:qwen3:32b": 65_536 },
    });
    const registry = registryFromConfig(config);
    expect(registry.forRole("default").contextWindow).toBe(DEFAULT_OLLAMA_NUM_CTX);
    expect(registry.forRole("writer").contextWindow).toBe(65_536);
    expect(() => configSchema.parse({ contextWindows: { "ollama:x": 100 } })).toThrow();
  });

  it.each([
    [undefined, "http://localhost:11434/api"],
    ["http://gpu-box:11434/v1", "http://gpu-box:11434/api"],
    ["http://gpu-box:11434/v1/", "http://gpu-box:11434/api"],
    ["http://gpu-box:11434", "http://gpu-box:11434/api"],
    ["https://llm.example/ollama/api", "https://llm.example/ollama/api"],
  ])("the API of base URL %s is %s", (base, api) => {
    expect(ollamaApiUrl(base)).toBe(api);
  });
});
