/**
 * One call through a codec: what the request sent to the model is (the codec's system, messages
 * and sampling; a JSON codec's last message as the prompt), what a reply becomes (the decoded
 * action, or the codec's refusal with the call it came from), and how a failed call turns into a
 * loop's stop reason. The model client is a fake of the context's own calls (`structured`,
 * `llm.call`) that answers as the real client does: the inspector judges the reply first.
 */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { exceeded } from "../../core/budget.ts";
import { DossierError } from "../../core/errors.ts";
import type { EventInput } from "../../core/events.ts";
import type { GenerateRequest, GenerateResult } from "../../llm/client.ts";
import type { StructuredRequest, StructuredResult } from "../../llm/structured.ts";
import type { RunContext } from "../run-context.ts";
import { type CodecRequest, decoded, type JsonCodec, refused, type TextCodec } from "./codec.ts";
import { failureOf, sampleAction, stopOf } from "./sample.ts";

const keywordsSchema = z.object({ keywords: z.array(z.string()) });
type Keywords = z.infer<typeof keywordsSchema>;

/** A JSON codec whose action is the first keyword; no keyword is refused. */
function jsonCodec(messages: CodecRequest["messages"]): JsonCodec<string, string, Keywords> {
  return {
    kind: "json",
    name: "test-json",
    request: (state) => ({
      role: "searcher",
      system: `Find ${state}`,
      messages,
      temperature: 0.3,
      topP: 0.9,
      maxOutputTokens: 400,
      schema: keywordsSchema,
    }),
    decode: (value, state) =>
      value.keywords.length ? decoded(`${state}:${value.keywords[0]}`) : refused("no keyword given"),
  };
}

/** A text codec whose action is the text inside `<a>…</a>`. */
const textCodec: TextCodec<string, string> = {
  kind: "text",
  name: "test-tags",
  request: (state) => ({
    role: "writer",
    messages: [{ role: "user", content: `Write ${state}` }],
    temperature: 0.7,
    topP: 0.8,
    maxOutputTokens: 2048,
  }),
  decode: (reply, state) => {
    const m = /<a>(.*)<\/a>/.exec(reply);
    return m ? decoded(`${state}:${m[1]}`) : refused("no <a> in the reply");
  },
};

interface Fake {
  ctx: RunContext;
  structured: StructuredRequest<unknown>[];
  calls: GenerateRequest[];
  /** What the inspector told the client of each plain reply (its recorded format error). */
  formatErrors: (string | null)[];
  events: EventInput[];
}

/**
 * A context whose structured call answers `value` (after its accept check, as the client does,
 * unless `replay`), or throws `error`; whose plain call answers `text` (inspected unless `replay`).
 */
function fakeContext(
  answer: {
    value?: unknown;
    raw?: string;
    callId?: string;
    text?: string;
    error?: unknown;
    replay?: boolean;
  },
  signal: AbortSignal = new AbortController().signal,
): Fake {
  const fake: Fake = { ctx: undefined as never, structured: [], calls: [], formatErrors: [], events: [] };
  fake.ctx = {
    signal,
    emit: (event: EventInput) => {
      fake.events.push(event);
      return event as never;
    },
    structured: async <T>(request: StructuredRequest<T>): Promise<StructuredResult<T>> => {
      fake.structured.push(request as StructuredRequest<unknown>);
      if (answer.error) throw answer.error;
      const value = answer.value as T;
      const refusal = answer.replay ? null : (request.accept?.(value) ?? null);
      if (refusal !== null) {
        throw new DossierError("STRUCTURED_OUTPUT_FAILED", `no valid answer: ${refusal}`, {
          details: { role: request.role, calls: (request.maxRepairs ?? 2) + 1, errors: [refusal] },
        });
      }
      return {
        value,
        raw: answer.raw ?? JSON.stringify(value),
        calls: 1,
        formatErrors: 0,
        repaired: false,
        ...(answer.callId ? { callId: answer.callId, model: "m-json" } : {}),
      };
    },
    llm: {
      call: async (request: GenerateRequest, inspect?: (text: string) => string | null) => {
        fake.calls.push(request);
        if (answer.error) throw answer.error;
        const text = answer.text ?? "";
        const formatError = answer.replay ? null : (inspect?.(text) ?? null);
        fake.formatErrors.push(formatError);
        return { result: { text, callId: "L7", model: "m-text" } as GenerateResult, formatError };
      },
    },
  } as unknown as RunContext;
  return fake;
}

describe("sampleAction through a JSON codec", () => {
  it("sends the codec's request as structured output: earlier turns as messages, the last as the prompt, no re-ask", async () => {
    const f = fakeContext({ value: { keywords: ["heat pump"] }, raw: "{…}", callId: "L1" });
    const messages = [
      { role: "user" as const, content: "first" },
      { role: "assistant" as const, content: "reply" },
      { role: "user" as const, content: "the turn" },
    ];
    const sampled = await sampleAction(f.ctx, jsonCodec(messages), "costs");
    expect(sampled).toEqual({
      kind: "action",
      action: "costs:heat pump",
      raw: "{…}",
      calls: 1,
      callId: "L1",
      model: "m-json",
      role: "searcher",
    });
    expect(f.structured).toHaveLength(1);
    const { accept, ...sent } = f.structured[0]!;
    expect(sent).toEqual({
      role: "searcher",
      system: "Find costs",
      temperature: 0.3,
      topP: 0.9,
      maxOutputTokens: 400,
      schema: keywordsSchema,
      messages: messages.slice(0, 2),
      prompt: "the turn",
      maxRepairs: 0,
    });
    // The codec judges every answer before the client records it.
    expect(accept?.({ keywords: [] })).toBe("no keyword given");
    expect(accept?.({ keywords: ["x"] })).toBeNull();
  });

  it("a request with no messages is sent with an empty prompt", async () => {
    const f = fakeContext({ value: { keywords: ["a"] } });
    await sampleAction(f.ctx, jsonCodec([]), "s");
    expect(f.structured[0]).toMatchObject({ messages: [], prompt: "" });
  });

  it("a refused reply with no repair left is the codec's refusal, with the calls made and no call id", async () => {
    const f = fakeContext({ value: { keywords: [] } });
    const sampled = await sampleAction(f.ctx, jsonCodec([{ role: "user", content: "p" }]), "s", {
      maxRepairs: 1,
    });
    expect(f.structured[0]?.maxRepairs).toBe(1);
    expect(sampled).toEqual({
      kind: "refused",
      error: "no keyword given",
      raw: "",
      calls: 2,
      role: "searcher",
    });
  });

  it("a structured failure without details is refused with its message, counted as every call allowed", async () => {
    const error = new DossierError("STRUCTURED_OUTPUT_FAILED", "role searcher: no valid answer");
    const f = fakeContext({ error });
    const sampled = await sampleAction(f.ctx, jsonCodec([{ role: "user", content: "p" }]), "s", {
      maxRepairs: 2,
    });
    expect(sampled).toEqual({
      kind: "refused",
      error: "role searcher: no valid answer",
      raw: "",
      calls: 3,
      role: "searcher",
    });
  });

  it("an answer that skipped the check (a journal replay) is decoded all the same", async () => {
    const codec = jsonCodec([{ role: "user", content: "p" }]);
    const ok = await sampleAction(fakeContext({ value: { keywords: ["b"] }, replay: true }).ctx, codec, "s");
    expect(ok).toEqual({
      kind: "action",
      action: "s:b",
      raw: '{"keywords":["b"]}',
      calls: 1,
      role: "searcher",
    });
    const f = fakeContext({ value: { keywords: [] }, raw: "{}", callId: "L2", replay: true });
    expect(await sampleAction(f.ctx, codec, "s")).toEqual({
      kind: "refused",
      error: "no keyword given",
      raw: "{}",
      calls: 1,
      callId: "L2",
      model: "m-json",
      role: "searcher",
    });
  });

  it("a failure that is not the codec's (budget, provider) is thrown on", async () => {
    const codec = jsonCodec([{ role: "user", content: "p" }]);
    await expect(
      sampleAction(fakeContext({ error: exceeded("tokens") }).ctx, codec, "s"),
    ).rejects.toMatchObject({
      code: "BUDGET_EXCEEDED",
    });
    const provider = new DossierError("PROVIDER_ERROR", "503");
    await expect(sampleAction(fakeContext({ error: provider }).ctx, codec, "s")).rejects.toBe(provider);
  });
});

describe("sampleAction through a text codec", () => {
  it("sends the codec's request as it is and decodes the reply inside the call", async () => {
    const f = fakeContext({ text: "<a>intro</a>" });
    const sampled = await sampleAction(f.ctx, textCodec, "costs");
    expect(f.calls).toEqual([textCodec.request("costs")]);
    expect(sampled).toEqual({
      kind: "action",
      action: "costs:intro",
      raw: "<a>intro</a>",
      calls: 1,
      callId: "L7",
      model: "m-text",
      role: "writer",
    });
    expect(f.formatErrors).toEqual([null]);
  });

  it("a reply the codec refuses is the refusal, with the raw reply and its call", async () => {
    const f = fakeContext({ text: "plain prose" });
    expect(await sampleAction(f.ctx, textCodec, "s")).toEqual({
      kind: "refused",
      error: "no <a> in the reply",
      raw: "plain prose",
      calls: 1,
      callId: "L7",
      model: "m-text",
      role: "writer",
    });
    // The client records the refusal as the call's format error.
    expect(f.formatErrors).toEqual(["no <a> in the reply"]);
  });

  it("a reply the client did not inspect is decoded all the same", async () => {
    const f = fakeContext({ text: "<a>x</a>", replay: true });
    expect(await sampleAction(f.ctx, textCodec, "s")).toMatchObject({ kind: "action", action: "s:x" });
  });
});

describe("a failed call as a stop reason", () => {
  it("names the budget limit, the error's code, or `error`", () => {
    const { ctx } = fakeContext({});
    expect(failureOf(ctx, exceeded("wallTime"))).toBe("budget:wallTime");
    expect(failureOf(ctx, new DossierError("RATE_LIMITED", "429"))).toBe("RATE_LIMITED");
    expect(failureOf(ctx, new Error("boom"))).toBe("error");
  });

  it("throws cancellation on, and any failure once the run is aborted", () => {
    const cancelled = new DossierError("CANCELLED", "cancelled");
    expect(() => failureOf(fakeContext({}).ctx, cancelled)).toThrow(cancelled);
    const aborted = new AbortController();
    aborted.abort();
    const provider = new DossierError("PROVIDER_ERROR", "503");
    expect(() => failureOf(fakeContext({}, aborted.signal).ctx, provider)).toThrow(provider);
    expect(() => stopOf(fakeContext({}, aborted.signal).ctx, provider, "W")).toThrow(provider);
  });

  it("a budget stop is silent; any other failure is `error:<CODE>` with a warning of the caller's code", () => {
    const f = fakeContext({});
    expect(stopOf(f.ctx, exceeded("cost"), "SEARCH_FAILED")).toBe("budget:cost");
    expect(f.events).toEqual([]);
    expect(stopOf(f.ctx, new DossierError("TIMEOUT", "slow"), "SEARCH_FAILED")).toBe("error:TIMEOUT");
    expect(stopOf(f.ctx, new Error("boom"), "WRITE_FAILED")).toBe("error:error");
    expect(f.events).toEqual([
      { type: "warning", code: "SEARCH_FAILED", message: "model call failed (TIMEOUT)" },
      { type: "warning", code: "WRITE_FAILED", message: "model call failed (error)" },
    ]);
  });
});
