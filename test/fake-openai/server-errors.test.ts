import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, generateText, RetryError, streamText } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, type FakeOpenAIOptions, startFakeOpenAI } from "./index.ts";

let server: FakeOpenAI | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Starts a fake server and a real openai-compatible chat model pointed at it. */
async function setup(options?: FakeOpenAIOptions) {
  const fake = await startFakeOpenAI(options);
  server = fake;
  const provider = createOpenAICompatible({
    name: "fake",
    baseURL: fake.url,
    apiKey: "test",
    includeUsage: true,
  });
  return { fake, model: provider.chatModel("fake-chat") };
}

/** The rejection of a promise (fails the test when it resolves). */
async function rejectionOf(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("startFakeOpenAI error replies via the AI SDK provider", () => {
  it("retries a 429 with retry-after and then succeeds", async () => {
    const { fake, model } = await setup({
      replies: [
        { kind: "error", status: 429, headers: { "retry-after": "1" } },
        { kind: "text", text: "after the rate limit" },
      ],
    });
    const result = await generateText({ model, prompt: "x", maxRetries: 2 });
    expect(result.text).toBe("after the rate limit");
    expect(fake.requests).toHaveLength(2);
    expect(fake.pending()).toBe(0);
  });

  it("gives up on a 500 after maxRetries + 1 requests with a RetryError wrapping APICallErrors", async () => {
    // retry-after-ms keeps the test fast; without it the SDK backs off 2 s before the retry.
    const failure = { kind: "error", status: 500, headers: { "retry-after-ms": "10" } } as const;
    const { fake, model } = await setup({ replies: [failure, failure, { kind: "text", text: "never" }] });
    const error = await rejectionOf(generateText({ model, prompt: "x", maxRetries: 1 }));
    expect(RetryError.isInstance(error)).toBe(true);
    const retryError = error as RetryError;
    expect(retryError.reason).toBe("maxRetriesExceeded");
    expect(retryError.errors).toHaveLength(2);
    expect(APICallError.isInstance(retryError.lastError)).toBe(true);
    expect((retryError.lastError as APICallError).statusCode).toBe(500);
    expect((retryError.lastError as APICallError).message).toBe("fake-openai: scripted server error 500");
    expect(fake.requests).toHaveLength(2);
    expect(fake.pending()).toBe(1);
  });

  it("throws the APICallError itself when retries are disabled or the error is not retryable", async () => {
    const { fake, model } = await setup({
      replies: [
        { kind: "error", status: 500 },
        {
          kind: "error",
          status: 400,
          body: { error: { message: "bad request body", type: "invalid_request_error" } },
        },
      ],
    });
    const serverError = await rejectionOf(generateText({ model, prompt: "x", maxRetries: 0 }));
    expect(APICallError.isInstance(serverError)).toBe(true);
    expect(serverError).toMatchObject({ statusCode: 500, isRetryable: true });
    const badRequest = await rejectionOf(generateText({ model, prompt: "x", maxRetries: 2 }));
    expect(APICallError.isInstance(badRequest)).toBe(true);
    expect(badRequest).toMatchObject({ statusCode: 400, isRetryable: false, message: "bad request body" });
    expect(fake.requests).toHaveLength(2);
  });

  it("rejects a malformed JSON body without retrying", async () => {
    const { fake, model } = await setup({
      replies: [{ kind: "malformed" }, { kind: "text", text: "unused" }],
    });
    const error = await rejectionOf(generateText({ model, prompt: "x", maxRetries: 2 }));
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 200, isRetryable: false, message: "Invalid JSON response" });
    expect(fake.requests).toHaveLength(1);
  });

  it("makes a truncated stream deliver the first deltas and then fail", async () => {
    const { fake, model } = await setup({
      replies: [
        { kind: "truncated-stream", text: "one two three four five six" },
        { kind: "text", text: "unused" },
      ],
    });
    const errors: unknown[] = [];
    const result = streamText({
      model,
      prompt: "x",
      maxRetries: 2,
      onError: ({ error }) => void errors.push(error),
    });
    const deltas: string[] = [];
    const streamError = await rejectionOf(
      (async () => {
        for await (const part of result.fullStream) {
          if (part.type === "text-delta") deltas.push(part.text);
        }
      })(),
    );
    expect(deltas.join("")).toBe("one two three ");
    expect(APICallError.isInstance(streamError)).toBe(true);
    expect(streamError).toMatchObject({ statusCode: 200, message: "Failed to process successful response" });
    expect(String((streamError as APICallError).cause)).toContain("terminated");
    expect(errors).toEqual([]);
    expect(await rejectionOf(result.text)).toBe(streamError);
    expect(fake.requests).toHaveLength(1);
  });

  it("makes a truncated non-streaming body fail the call", async () => {
    const { model } = await setup({ replies: [{ kind: "truncated-stream", text: "half a body" }] });
    const error = await rejectionOf(generateText({ model, prompt: "x", maxRetries: 0 }));
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ message: "Failed to process successful response" });
  });

  it("records requests that arrive after the script is exhausted as unexpected", async () => {
    const { fake, model } = await setup({ replies: [{ kind: "text", text: "only one" }] });
    expect((await generateText({ model, prompt: "first", maxRetries: 0 })).text).toBe("only one");
    const error = await rejectionOf(generateText({ model, prompt: "second", maxRetries: 0 }));
    expect(error).toMatchObject({ statusCode: 500, message: "fake-openai: unexpected request" });
    expect(fake.unexpected).toHaveLength(1);
    expect(fake.unexpected[0]?.body).toMatchObject({ messages: [{ role: "user", content: "second" }] });
    expect(fake.requests).toHaveLength(2);
  });

  it("sends raw replies verbatim", async () => {
    const { fake } = await setup({
      replies: [{ kind: "raw", status: 418, headers: { "x-fake": "yes" }, body: "teapot" }],
    });
    const response = await fetch(`${fake.url}/chat/completions`, { method: "POST", body: "not json" });
    expect(response.status).toBe(418);
    expect(response.headers.get("x-fake")).toBe("yes");
    expect(await response.text()).toBe("teapot");
    expect(fake.requests[0]?.body).toBe("not json");
  });
});
