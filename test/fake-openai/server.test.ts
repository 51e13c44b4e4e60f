import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { embedMany, generateText, streamText, tool } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  countPromptTokens,
  type FakeOpenAI,
  type FakeOpenAIOptions,
  fakeEmbedding,
  startFakeOpenAI,
} from "./index.ts";

let server: FakeOpenAI | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Starts a fake server and a real openai-compatible provider pointed at it. */
async function setup(options?: FakeOpenAIOptions) {
  const fake = await startFakeOpenAI(options);
  server = fake;
  const provider = createOpenAICompatible({
    name: "fake",
    baseURL: fake.url,
    apiKey: "test",
    includeUsage: true,
  });
  return { fake, provider, model: provider.chatModel("fake-chat") };
}

const searchTools = {
  search: tool({
    description: "Search the web.",
    inputSchema: z.object({ query: z.string(), limit: z.number() }),
  }),
};

describe("startFakeOpenAI via the AI SDK provider", () => {
  it("answers a plain call with text and deterministic usage, and logs the request", async () => {
    const { fake, model } = await setup({ replies: [{ kind: "text", text: "Hello there, reader." }] });
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const result = await generateText({
      model,
      instructions: "Be brief.",
      prompt: "Say hello",
      maxRetries: 0,
    });
    expect(result.text).toBe("Hello there, reader.");
    expect(result.finishReason).toBe("stop");
    expect(result.usage.inputTokens).toBe(5); // ceil(("Be brief." + "Say hello").length / 4)
    expect(result.usage.outputTokens).toBe(5); // ceil(20 / 4)
    expect(result.usage.totalTokens).toBe(10);
    expect(fake.requests).toHaveLength(1);
    const request = fake.requests[0]!;
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer test");
    expect(request.body).toMatchObject({
      model: "fake-chat",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Say hello" },
      ],
    });
    expect(countPromptTokens(request.body)).toBe(5);
    expect(typeof request.receivedAt).toBe("number");
    expect(fake.pending()).toBe(0);
    expect(fake.unexpected).toEqual([]);
  });

  it("streams text in several deltas with usage from the include_usage chunk", async () => {
    const { fake, model } = await setup();
    fake.enqueue({
      kind: "text",
      text: "Streaming works across several small deltas.",
      usage: { prompt_tokens: 11, completion_tokens: 7 },
    });
    const result = streamText({ model, prompt: "Stream please", maxRetries: 0 });
    const deltas: string[] = [];
    for await (const delta of result.textStream) {
      deltas.push(delta);
    }
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Streaming works across several small deltas.");
    const usage = await result.usage;
    expect(usage.inputTokens).toBe(11);
    expect(usage.outputTokens).toBe(7);
    expect(usage.totalTokens).toBe(18);
    expect(await result.finishReason).toBe("stop");
    expect(fake.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("returns a scripted tool call from a non-streaming call", async () => {
    const { fake, model } = await setup({
      replies: [
        {
          kind: "tool-calls",
          calls: [{ name: "search", arguments: { query: "llm evals", limit: 3 }, id: "call_1" }],
        },
      ],
    });
    const result = await generateText({ model, tools: searchTools, prompt: "Find evals", maxRetries: 0 });
    expect(result.finishReason).toBe("tool-calls");
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({
      toolCallId: "call_1",
      toolName: "search",
      input: { query: "llm evals", limit: 3 },
    });
    expect(fake.requests[0]?.body).toMatchObject({
      tools: [{ type: "function", function: { name: "search" } }],
    });
  });

  it("streams tool calls with chunked arguments and default ids", async () => {
    const { model } = await setup({
      replies: [
        {
          kind: "tool-calls",
          text: "Searching now.",
          calls: [
            { name: "search", arguments: { query: "retrieval augmented generation", limit: 5 } },
            { name: "search", arguments: '{"query":"citations","limit":1}' },
          ],
        },
      ],
    });
    const result = streamText({ model, tools: searchTools, prompt: "Find things", maxRetries: 0 });
    let inputDeltas = 0;
    for await (const part of result.fullStream) {
      if (part.type === "tool-input-delta") inputDeltas += 1;
    }
    expect(inputDeltas).toBeGreaterThan(2);
    expect(await result.text).toBe("Searching now.");
    expect(await result.finishReason).toBe("tool-calls");
    const calls = await result.toolCalls;
    expect(calls.map((call) => [call.toolCallId, call.toolName, call.input])).toEqual([
      ["call_fake_1_0", "search", { query: "retrieval augmented generation", limit: 5 }],
      ["call_fake_1_1", "search", { query: "citations", limit: 1 }],
    ]);
  });

  it("omits usage when a reply has usage: null, streamed or not", async () => {
    const { model } = await setup({
      replies: [
        { kind: "text", text: "no usage", usage: null },
        { kind: "text", text: "no usage either", usage: null },
      ],
    });
    const generated = await generateText({ model, prompt: "x", maxRetries: 0 });
    expect(generated.text).toBe("no usage");
    expect(generated.usage.inputTokens).toBeUndefined();
    expect(generated.usage.outputTokens).toBeUndefined();
    const streamed = streamText({ model, prompt: "y", maxRetries: 0 });
    expect(await streamed.text).toBe("no usage either");
    const usage = await streamed.usage;
    expect(usage.inputTokens).toBeUndefined();
    expect(usage.outputTokens).toBeUndefined();
  });

  it("uses the handler for dynamic replies and honours latency", async () => {
    const { fake, model } = await setup({
      latencyMs: 30,
      handler: (request) => {
        const messages = (request.body as { messages: Array<{ content: string }> }).messages;
        return { kind: "text", text: `echo: ${messages.at(-1)?.content}`, latencyMs: 10 };
      },
    });
    const first = await generateText({ model, prompt: "one", maxRetries: 0 });
    const second = await generateText({ model, prompt: "two", maxRetries: 0 });
    expect([first.text, second.text]).toEqual(["echo: one", "echo: two"]);
    expect(fake.requests).toHaveLength(2);
  });

  it("still answers when a server-wide latency is set", async () => {
    const { model } = await setup({ latencyMs: 50, replies: [{ kind: "text", text: "slow but sure" }] });
    const result = await generateText({ model, prompt: "wait", maxRetries: 0 });
    expect(result.text).toBe("slow but sure");
  });

  it("serves deterministic embeddings without consuming scripted replies", async () => {
    const { fake, provider } = await setup({ replies: [{ kind: "text", text: "unused" }] });
    const values = ["alpha beta", "alpha beta gamma", "zebra lasagna"];
    const result = await embedMany({ model: provider.embeddingModel("fake-embed"), values, maxRetries: 0 });
    expect(result.embeddings).toEqual(values.map((value) => fakeEmbedding(value, 8)));
    expect(fake.pending()).toBe(1);
    expect(fake.requests.map((request) => request.path)).toEqual(["/v1/embeddings"]);
    expect(fake.requests[0]?.body).toMatchObject({ input: values, model: "fake-embed" });
  });

  it("serves the model list and answers unknown paths with a 404 JSON error", async () => {
    const { fake } = await setup({ model: "configured-model" });
    const models = await fetch(`${fake.url}/models`);
    expect(await models.json()).toMatchObject({
      object: "list",
      data: [{ id: "configured-model", object: "model" }],
    });
    const missing = await fetch(`${fake.url}/nope`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "GET /v1/models",
      "POST /v1/nope",
    ]);
  });
});

describe("fakeEmbedding", () => {
  const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);

  it("returns unit vectors of the requested size that are stable and similarity-preserving", () => {
    const base = fakeEmbedding("The quick brown fox jumps", 64);
    expect(base).toHaveLength(64);
    expect(cosine(base, base)).toBeCloseTo(1, 10);
    expect(fakeEmbedding("The quick brown fox jumps", 64)).toEqual(base);
    const near = fakeEmbedding("the quick brown foxes jump", 64);
    const far = fakeEmbedding("zebra lasagna recipe", 64);
    expect(cosine(base, near)).toBeGreaterThan(cosine(base, far));
    expect(fakeEmbedding("", 4)).toEqual([1, 0, 0, 0]);
  });
});
