/**
 * Token capture: an OpenAI-compatible call asks for vLLM's and SGLang's documented token fields
 * and records the prompt ids, completion ids and per-token log-probs the server returned; a
 * constrained (schema) call says so; without guided decoding a structured answer is asked in
 * the prompt; a journal replay records the same ids; a call without capture sends nothing extra.
 */

import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  BYTE_TOKENIZER,
  byteEncode,
  chatMl,
  type FakeOpenAI,
  type FakeTokens,
  fakeLogprob,
  startFakeOpenAI,
} from "../../test/fake-openai/index.ts";
import { instantClock } from "../../test/scripted/clocks.ts";
import type { EventInput, EventOf } from "../core/events.ts";
import { createMemoryJournal, type StepJournal } from "../core/journal.ts";
import { recordedCallsFromEvents } from "../train/calls-from-events.ts";
import { fixtureEvents } from "../train/test-fixtures.ts";
import { CallRecorder } from "./call-recorder.ts";
import { LlmClient } from "./client.ts";
import { createModelRegistry } from "./registry.ts";
import { generateStructured } from "./structured.ts";
import { type TokenCapture, tokenCaptureOf, tokensOfResponse } from "./token-capture.ts";

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(options: {
  replies: string[];
  tokens?: TokenCapture;
  flavor?: FakeTokens["flavor"];
  journal?: StepJournal;
}) {
  server = await startFakeOpenAI({
    replies: options.replies.map((text) => ({ kind: "text" as const, text })),
    tokens: { tokenizer: BYTE_TOKENIZER, flavor: options.flavor ?? "vllm" },
  });
  const events: EventInput[] = [];
  const emit = (e: EventInput) => {
    events.push(e);
  };
  const client = new LlmClient({
    registry: createModelRegistry({
      defaultModel: "openai-compatible:policy",
      baseUrl: server.url,
      apiKey: "sk-test",
    }),
    clock: instantClock(),
    emit,
    recorder: new CallRecorder({ emit }),
    ...(options.tokens ? { tokens: options.tokens } : {}),
    ...(options.journal ? { journal: options.journal } : {}),
  });
  const calls = () =>
    events.filter((e): e is EventOf<"llm-call"> => e.type === "llm-call") as unknown as EventOf<"llm-call">[];
  return { client, events, calls };
}

const bodies = () => server!.requests.map((r) => r.body as Record<string, unknown>);

describe("tokensOfResponse", () => {
  const logprobs = (ids: number[], asIds = true) => ({
    content: ids.map((id, i) => ({ token: asIds ? `token_id:${id}` : "x", logprob: -0.1 * (i + 1) })),
  });
  it("reads vLLM's fields: prompt_token_ids on the response, token_ids and logprobs on the choice", () => {
    const body = {
      prompt_token_ids: [1, 2, 3],
      choices: [{ token_ids: [4, 5], logprobs: logprobs([4, 5]) }],
    };
    expect(tokensOfResponse(body)).toEqual({
      promptIds: [1, 2, 3],
      completionIds: [4, 5],
      logprobs: [-0.1, -0.2],
    });
  });
  it("reads SGLang's fields: prompt_token_ids and token_ids on the choice", () => {
    const body = { choices: [{ prompt_token_ids: [7], token_ids: [8], logprobs: logprobs([8], false) }] };
    expect(tokensOfResponse(body)).toEqual({ promptIds: [7], completionIds: [8], logprobs: [-0.1] });
  });
  it("reads an older vLLM's completion ids from token_id:<id> tokens, but without prompt ids keeps none", () => {
    const body = { choices: [{ logprobs: logprobs([4, 5]) }] };
    expect(tokensOfResponse(body)).toEqual({ promptIds: null, completionIds: null, logprobs: null });
    expect(tokensOfResponse({ ...body, prompt_token_ids: [1] })).toEqual({
      promptIds: [1],
      completionIds: [4, 5],
      logprobs: [-0.1, -0.2],
    });
  });
  it("keeps no log-probs that do not align one per completion token, and nothing from a plain answer", () => {
    const body = { prompt_token_ids: [1], choices: [{ token_ids: [4, 5], logprobs: logprobs([4]) }] };
    expect(tokensOfResponse(body).logprobs).toBeNull();
    expect(tokensOfResponse({ choices: [{ message: { content: "hi" } }] })).toEqual({
      promptIds: null,
      completionIds: null,
      logprobs: null,
    });
    expect(tokensOfResponse(undefined).promptIds).toBeNull();
  });
  it("is asked for by recordTokens, with guided decoding off for a native protocol", () => {
    expect(tokenCaptureOf({ recordTokens: true, strategyOptions: { protocol: "native" } })).toEqual({
      guidedDecoding: false,
    });
    expect(tokenCaptureOf({ recordTokens: true, strategyOptions: {} })).toEqual({ guidedDecoding: true });
    expect(tokenCaptureOf({ strategyOptions: { protocol: "native" } })).toBeUndefined();
  });
});

describe("token capture through the client", () => {
  const messages = [{ role: "user" as const, content: "Where is the museum? ünï" }];

  for (const flavor of ["vllm", "sglang"] as const) {
    it(`records the ${flavor} server's prompt ids, completion ids and log-probs of a call`, async () => {
      const { client, calls } = await setup({
        replies: ["It is in Paris."],
        tokens: { guidedDecoding: true },
        flavor,
      });
      await client.generate({ role: "searcher", system: "You answer.", messages });
      expect(bodies()[0]).toMatchObject({
        return_token_ids: true,
        return_prompt_token_ids: true,
        logprobs: true,
        top_logprobs: 0,
        return_tokens_as_token_ids: true,
      });
      const prompt = byteEncode(chatMl([{ role: "system", content: "You answer." }, ...messages]));
      const completion = [...byteEncode("It is in Paris."), 257];
      expect(calls()[0]!.tokens).toEqual({
        constrained: false,
        promptIds: prompt,
        completionIds: completion,
        logprobs: completion.map((id, i) => fakeLogprob(id, i)),
      });
      const decoded = recordedCallsFromEvents(fixtureEvents(calls()));
      expect(decoded[0]!.tokens?.promptIds).toEqual(prompt);
    });
  }

  it("stores a call's prompt ids that extend the previous call's prompt and completion as a prefix", async () => {
    const { client, calls } = await setup({
      replies: ["First.", "Second."],
      tokens: { guidedDecoding: true },
    });
    await client.generate({ role: "searcher", messages });
    const next = [
      ...messages,
      { role: "assistant" as const, content: "First." },
      { role: "user" as const, content: "More?" },
    ];
    await client.generate({ role: "searcher", messages: next });
    const [first, second] = calls();
    const tip = [...first!.tokens!.promptIds!, ...first!.tokens!.completionIds!];
    // ChatML closes the assistant turn with <|im_end|> then a newline: the shared prefix is the tip.
    expect(second!.tokens!.prefix).toEqual({ callId: first!.callId, count: tip.length });
    const [, decoded] = recordedCallsFromEvents(fixtureEvents(calls()));
    expect(decoded!.tokens!.promptIds).toEqual(byteEncode(chatMl(next)));
  });

  it("says which calls were constrained, and asks structured answers in the prompt without guided decoding", async () => {
    const schema = z.object({ answer: z.string() });
    const guided = await setup({ replies: ['{"answer": "Paris"}'], tokens: { guidedDecoding: true } });
    await generateStructured(guided.client, { role: "searcher", prompt: "Capital?", schema });
    expect(bodies()[0]!.response_format).toMatchObject({ type: "json_schema" });
    expect(guided.calls()[0]!.tokens!.constrained).toBe(true);
    await server!.close();

    const free = await setup({ replies: ['{"answer": "Paris"}'], tokens: { guidedDecoding: false } });
    await generateStructured(free.client, { role: "searcher", prompt: "Capital?", schema });
    expect(bodies()[0]!.response_format).toBeUndefined();
    expect(free.calls()[0]!.tokens!.constrained).toBe(false);
    expect(JSON.stringify(bodies()[0]!.messages)).toContain("Answer with only one JSON value");
  });

  it("records the same ids for a call replayed from the journal", async () => {
    const journal = createMemoryJournal();
    const first = await setup({ replies: ["Once."], tokens: { guidedDecoding: true }, journal });
    await first.client.generate({ role: "searcher", messages });
    const recorded = first.calls()[0]!.tokens;
    await server!.close();
    const again = await setup({ replies: [], tokens: { guidedDecoding: true }, journal });
    await again.client.generate({ role: "searcher", messages });
    expect(server!.requests).toEqual([]);
    expect(again.calls()[0]!.replayed).toBe(true);
    expect(again.calls()[0]!.tokens).toEqual(recorded);
  });

  it("sends no token fields and records no tokens without capture", async () => {
    const { client, calls } = await setup({ replies: ["Plain."] });
    await client.generate({ role: "searcher", messages });
    expect(Object.keys(bodies()[0]!)).not.toContain("return_token_ids");
    expect(Object.keys(bodies()[0]!)).not.toContain("logprobs");
    expect(calls()[0]!.tokens).toBeUndefined();
  });
});
