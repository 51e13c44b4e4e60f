import { describe, expect, it } from "vitest";
import { instantClock } from "../../../test/scripted/clocks.ts";
import type { EventInput } from "../../core/events.ts";
import { ToolGateway } from "../gateway.ts";
import { createEmbeddingClient, embeddingSettings, OPENAI_BASE_URL } from "./embeddings.ts";
import { gatewayEmbeddings } from "./gateway-embeddings.ts";

type Call = { url: string; body: { model: string; input: string[]; dimensions?: number } };

/** A fetch answering embeddings requests with vectors [index of text, length of text]. */
function fakeFetch(calls: Call[], answer?: (body: Call["body"]) => Response): typeof fetch {
  return async (url, init) => {
    const body = JSON.parse(String(init?.body)) as Call["body"];
    calls.push({ url: String(url), body });
    if (answer) return answer(body);
    const data = body.input.map((text, index) => ({ index, embedding: [index, text.length] })).reverse();
    return new Response(JSON.stringify({ data }), { status: 200 });
  };
}

describe("createEmbeddingClient", () => {
  it("posts batches to <baseUrl>/embeddings and returns vectors in input order", async () => {
    const calls: Call[] = [];
    const client = createEmbeddingClient({
      baseUrl: "http://embed.test/v1/",
      model: "m",
      batchSize: 2,
      dimensions: 2,
      fetch: fakeFetch(calls),
    });
    const vectors = await client.embed(["a", "bb", "ccc"]);
    expect(calls).toEqual([
      { url: "http://embed.test/v1/embeddings", body: { model: "m", input: ["a", "bb"], dimensions: 2 } },
      { url: "http://embed.test/v1/embeddings", body: { model: "m", input: ["ccc"], dimensions: 2 } },
    ]);
    expect(vectors.map((v) => [...v])).toEqual([
      [0, 1],
      [1, 2],
      [0, 3],
    ]);
    expect(vectors[0]).toBeInstanceOf(Float32Array);
  });

  it("turns HTTP errors into typed, retryable-or-not errors", async () => {
    const status = (code: number) =>
      createEmbeddingClient({
        baseUrl: "http://e",
        model: "m",
        fetch: fakeFetch([], () => new Response("nope", { status: code })),
      });
    await expect(status(500).embed(["x"])).rejects.toMatchObject({ code: "PROVIDER_ERROR", retryable: true });
    await expect(status(429).embed(["x"])).rejects.toMatchObject({ code: "RATE_LIMITED", retryable: true });
    await expect(status(401).embed(["x"])).rejects.toMatchObject({ code: "PROVIDER_NOT_CONFIGURED" });
  });

  it("refuses answers with missing or uneven vectors", async () => {
    const answer = (data: unknown) =>
      createEmbeddingClient({
        baseUrl: "http://e",
        model: "m",
        fetch: fakeFetch([], () => new Response(JSON.stringify({ data }), { status: 200 })),
      });
    await expect(answer([{ index: 0, embedding: [1] }]).embed(["a", "b"])).rejects.toMatchObject({
      code: "PROVIDER_ERROR",
      message: expect.stringContaining("1 vectors for 2 inputs"),
    });
    const uneven = [
      { index: 0, embedding: [1, 2] },
      { index: 1, embedding: [1] },
    ];
    await expect(answer(uneven).embed(["a", "b"])).rejects.toMatchObject({ code: "PROVIDER_ERROR" });
    await expect(answer("oops").embed(["a"])).rejects.toMatchObject({ code: "PROVIDER_ERROR" });
  });
});

describe("embeddingSettings", () => {
  it("reads DOSSIER_EMBEDDING_* first", () => {
    expect(
      embeddingSettings(
        {
          DOSSIER_EMBEDDING_URL: "http://e/v1",
          DOSSIER_EMBEDDING_MODEL: "nomic",
          DOSSIER_EMBEDDING_API_KEY: "k1",
        },
        { baseUrl: "http://chat/v1", apiKey: "k2" },
      ),
    ).toEqual({ baseUrl: "http://e/v1", model: "nomic", apiKey: "k1" });
  });

  it("falls back to the stored model and URL, then the configured base URL and key", () => {
    expect(embeddingSettings({}, { baseUrl: "http://chat/v1", apiKey: "k2" }, { model: "stored" })).toEqual({
      baseUrl: "http://chat/v1",
      model: "stored",
      apiKey: "k2",
    });
    expect(embeddingSettings({}, {}, { model: "stored", baseUrl: "http://old/v1" })).toEqual({
      baseUrl: "http://old/v1",
      model: "stored",
    });
  });

  it("defaults to OpenAI with its key, and needs a model elsewhere", () => {
    expect(embeddingSettings({ OPENAI_API_KEY: "sk" })).toEqual({
      baseUrl: OPENAI_BASE_URL,
      model: "text-embedding-3-small",
      apiKey: "sk",
    });
    expect(() => embeddingSettings({ DOSSIER_EMBEDDING_URL: "http://local/v1" })).toThrow(
      expect.objectContaining({ code: "PROVIDER_NOT_CONFIGURED" }),
    );
  });
});

describe("gatewayEmbeddings", () => {
  it("makes each request a gateway call and rethrows failures", async () => {
    const events: EventInput[] = [];
    const gateway = new ToolGateway({
      clock: instantClock(),
      emit: (e) => events.push(e),
      defaults: { retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1, jitter: 0, maxRetryAfterMs: 1 } },
    });
    const ok = gatewayEmbeddings(
      gateway,
      createEmbeddingClient({ baseUrl: "http://e", model: "m", fetch: fakeFetch([]) }),
    );
    expect((await ok.embed(["a", "b"])).length).toBe(2);
    expect(
      events.map((e) => [e.type, (e as { tool?: string }).tool, (e as { provider?: string }).provider]),
    ).toEqual([
      ["tool-start", "embeddings", "embeddings"],
      ["tool-end", "embeddings", "embeddings"],
    ]);
    const failing = gatewayEmbeddings(
      gateway,
      createEmbeddingClient({
        baseUrl: "http://e",
        model: "m",
        fetch: fakeFetch([], () => new Response("", { status: 400 })),
      }),
    );
    await expect(failing.embed(["a"])).rejects.toMatchObject({ code: "PROVIDER_ERROR", retryable: false });
  });
});
