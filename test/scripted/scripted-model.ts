/**
 * A scripted language model for tests, on top of the AI SDK's MockLanguageModelV4. Each call
 * consumes one scripted step; a call with no step left, or a step left unused when the test
 * ends, fails the test — even if the code under test swallows the error.
 *
 * Steps are consumed in order, except that a step with `match` is only used by a call whose
 * prompt text matches it — so concurrent agents can be scripted without depending on which
 * one calls first.
 */

import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { APICallError } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { onTestFinished } from "vitest";
import { recordWire } from "./wire-snapshot.ts";

/** Token counts a step reports; `null` reports none (unknown usage). */
export type ScriptUsage = { input: number; output: number } | null;

/** What a step answers. */
export type ScriptReply =
  | string
  | { text: string; usage?: ScriptUsage; finishReason?: "stop" | "length" }
  | { json: unknown; usage?: ScriptUsage }
  | { toolCalls: Array<{ name: string; input: unknown; id?: string }>; text?: string; usage?: ScriptUsage }
  | { error: { status: number; message?: string; headers?: Record<string, string>; retryable?: boolean } };

/** One scripted call. */
export type ScriptStep =
  | ScriptReply
  | {
      /** Only calls whose prompt text matches take this step. */
      match?: string | RegExp | ((prompt: string) => boolean);
      /** A fixed reply, or one computed from the call. */
      reply: ScriptReply | ((call: ScriptedCall) => ScriptReply | Promise<ScriptReply>);
    };

/** A call as the script sees it. */
export interface ScriptedCall {
  /** 0-based call number. */
  index: number;
  /** All prompt text (system and messages) joined. */
  prompt: string;
  /** The system instructions. */
  system: string;
  /** The last user message's text. */
  lastUser: string;
  options: LanguageModelV4CallOptions;
}

/** A scripted model and what happened to it. */
export interface ScriptedModel {
  model: MockLanguageModelV4;
  /** Calls received, in order. */
  calls: ScriptedCall[];
  /** Steps not yet used. */
  remaining(): number;
  /** Calls that found no step. */
  unexpected: ScriptedCall[];
  /** Adds steps. */
  push(...steps: ScriptStep[]): void;
  /** Throws when a step is unused or an unexpected call came. */
  assertDone(): void;
}

/** Options of {@link scriptedModel}. */
export interface ScriptedModelOptions {
  provider?: string;
  modelId?: string;
  /** Check at the end of the current test that every step was used (default true). */
  checkAtEnd?: boolean;
}

/** Creates a scripted model. */
export function scriptedModel(steps: ScriptStep[], options: ScriptedModelOptions = {}): ScriptedModel {
  const queue: ScriptStep[] = [...steps];
  const calls: ScriptedCall[] = [];
  const unexpected: ScriptedCall[] = [];

  const take = async (callOptions: LanguageModelV4CallOptions): Promise<ScriptReply> => {
    const call = describeCall(callOptions, calls.length);
    calls.push(call);
    recordWire(callOptions);
    const index = queue.findIndex((step) => stepMatches(step, call.prompt));
    if (index < 0) {
      unexpected.push(call);
      throw new Error(
        `scripted model: unexpected call #${call.index + 1} (${queue.length} step(s) left, none matching); last user message: ${call.lastUser.slice(0, 200)}`,
      );
    }
    const [step] = queue.splice(index, 1);
    const reply = isWrapped(step!) ? step.reply : step!;
    return typeof reply === "function" ? reply(call) : reply;
  };

  const model = new MockLanguageModelV4({
    provider: options.provider ?? "scripted",
    modelId: options.modelId ?? "model",
    doGenerate: async (callOptions) => toGenerateResult(await take(callOptions), callOptions),
    doStream: async (callOptions) => ({
      stream: toStream(toGenerateResult(await take(callOptions), callOptions)),
    }),
  });

  const scripted: ScriptedModel = {
    model,
    calls,
    unexpected,
    remaining: () => queue.length,
    push: (...more) => {
      queue.push(...more);
    },
    assertDone() {
      const problems: string[] = [];
      if (unexpected.length) problems.push(`${unexpected.length} unexpected call(s)`);
      if (queue.length) problems.push(`${queue.length} scripted step(s) never used`);
      if (problems.length)
        throw new Error(`scripted model ${options.modelId ?? "model"}: ${problems.join(", ")}`);
    },
  };
  if (options.checkAtEnd ?? true) {
    try {
      onTestFinished(({ task }) => {
        if (task.result?.state === "fail") return;
        scripted.assertDone();
      });
    } catch {
      // Not inside a test: the caller checks with assertDone().
    }
  }
  return scripted;
}

function isWrapped(step: ScriptStep): step is Extract<ScriptStep, { reply: unknown }> {
  return typeof step === "object" && step !== null && "reply" in step;
}

function stepMatches(step: ScriptStep, prompt: string): boolean {
  if (!isWrapped(step) || step.match === undefined) return true;
  const m = step.match;
  if (typeof m === "string") return prompt.includes(m);
  if (m instanceof RegExp) return m.test(prompt);
  return m(prompt);
}

function partsText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p: { type?: string; text?: string; output?: unknown }) =>
      p.type === "text" ? (p.text ?? "") : p.type === "tool-result" ? JSON.stringify(p.output) : "",
    )
    .join("\n");
}

function describeCall(options: LanguageModelV4CallOptions, index: number): ScriptedCall {
  const system = options.prompt
    .filter((m) => m.role === "system")
    .map((m) => partsText(m.content))
    .join("\n");
  const users = options.prompt.filter((m) => m.role === "user");
  const prompt = options.prompt.map((m) => partsText(m.content)).join("\n");
  return { index, prompt, system, lastUser: partsText(users.at(-1)?.content), options };
}

function usageOf(
  usage: ScriptUsage | undefined,
  text: string,
  options: LanguageModelV4CallOptions,
): LanguageModelV4Usage {
  const counts =
    usage === null
      ? null
      : (usage ?? {
          input: Math.ceil(describeCall(options, 0).prompt.length / 4),
          output: Math.ceil(text.length / 4),
        });
  return {
    inputTokens: {
      total: counts?.input,
      noCache: counts?.input,
      cacheRead: undefined,
      cacheWrite: undefined,
    },
    outputTokens: { total: counts?.output, text: counts?.output, reasoning: undefined },
  };
}

function toGenerateResult(
  reply: ScriptReply,
  options: LanguageModelV4CallOptions,
): LanguageModelV4GenerateResult {
  if (typeof reply === "string") reply = { text: reply };
  if ("error" in reply) {
    const { status, message, headers, retryable } = reply.error;
    throw new APICallError({
      message: message ?? `scripted HTTP ${status}`,
      url: "scripted://model",
      requestBodyValues: {},
      statusCode: status,
      responseHeaders: headers,
      isRetryable: retryable ?? (status === 429 || status >= 500),
    });
  }
  const content: LanguageModelV4Content[] = [];
  let text = "";
  let finish: "stop" | "length" | "tool-calls" = "stop";
  if ("json" in reply) text = JSON.stringify(reply.json);
  else if ("toolCalls" in reply) {
    text = reply.text ?? "";
    finish = "tool-calls";
  } else {
    text = reply.text;
    finish = reply.finishReason ?? "stop";
  }
  if (text) content.push({ type: "text", text });
  if ("toolCalls" in reply) {
    reply.toolCalls.forEach((c, i) => {
      content.push({
        type: "tool-call",
        toolCallId: c.id ?? `call-${i + 1}`,
        toolName: c.name,
        input: JSON.stringify(c.input),
      });
    });
  }
  return {
    content,
    finishReason: { unified: finish, raw: finish },
    usage: usageOf(reply.usage, text, options),
    warnings: [],
  };
}

function toStream(result: LanguageModelV4GenerateResult): ReadableStream<LanguageModelV4StreamPart> {
  const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
  for (const item of result.content) {
    if (item.type === "text") {
      parts.push({ type: "text-start", id: "t" });
      for (const piece of item.text.match(/[\s\S]{1,16}/g) ?? [])
        parts.push({ type: "text-delta", id: "t", delta: piece });
      parts.push({ type: "text-end", id: "t" });
    } else {
      parts.push(item as LanguageModelV4StreamPart);
    }
  }
  parts.push({ type: "finish", usage: result.usage, finishReason: result.finishReason });
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(p);
      controller.close();
    },
  });
}
