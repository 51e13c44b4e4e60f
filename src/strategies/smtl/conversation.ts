/**
 * The smtl agent's conversation: the task message, then alternating model replies and tool
 * observations. A call sends the whole conversation; a rejected reply is not recorded but its
 * reason rides along with the next call; a reset keeps a single message (the task and the
 * refreshed plan) and drops every older turn.
 */

import type { z } from "zod";
import { exceededLimit } from "../../core/budget.ts";
import { isDossierError } from "../../core/errors.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { ChatMessage } from "../../llm/client.ts";
import { estimatePromptTokens } from "../../llm/token-estimate.ts";

/** What a model call gave: a valid reply, a malformed one, or a reason to stop the loop. */
export type Reply<T> =
  | { kind: "ok"; value: T; raw: string }
  | { kind: "malformed"; error: string }
  | { kind: "stop"; reason: string };

/** The conversation of one smtl run. */
export class SmtlConversation {
  #turns: ChatMessage[];
  /** Why the last reply was rejected, sent with the next call only. */
  #note = "";
  readonly #ctx: RunContext;
  readonly #sampling: { temperature?: number; topP?: number };

  /** `sampling`: the user's temperature and top-p, when set (else the provider's defaults). */
  constructor(ctx: RunContext, task: string, sampling: { temperature?: number; topP?: number } = {}) {
    this.#ctx = ctx;
    this.#turns = [{ role: "user", content: task }];
    this.#sampling = sampling;
  }

  /** The turns, oldest first; always starts and ends with a user message between calls. */
  get turns(): readonly ChatMessage[] {
    return this.#turns;
  }

  /** One structured call over the conversation (no repair: a bad reply is the agent's to handle). */
  async call<T>(schema: z.ZodType<T>, system: string, extra = ""): Promise<Reply<T>> {
    const ctx = this.#ctx;
    const last = this.#turns.at(-1)!.content;
    try {
      const r = await ctx.structured({
        role: "searcher",
        schema,
        system,
        messages: this.#turns.slice(0, -1),
        prompt: [last, extra, this.#note].filter(Boolean).join("\n\n"),
        maxRepairs: 0,
        maxOutputTokens: 4096,
        ...this.#sampling,
      });
      return { kind: "ok", value: r.value, raw: r.raw };
    } catch (error) {
      if (isDossierError(error, "CANCELLED") || ctx.signal.aborted) throw error;
      const limit = exceededLimit(error);
      if (limit) return { kind: "stop", reason: `budget:${limit}` };
      if (isDossierError(error, "STRUCTURED_OUTPUT_FAILED")) {
        const errors = (error.details.errors as string[] | undefined) ?? [];
        return { kind: "malformed", error: errors.at(-1) ?? error.message };
      }
      const code = isDossierError(error) ? error.code : "error";
      ctx.emit({ type: "warning", code: "SMTL_STEP_FAILED", message: `model call failed (${code})` });
      return { kind: "stop", reason: `error:${code}` };
    }
  }

  /** Sends `reason` with the next call instead of recording the rejected reply. */
  reject(reason: string): void {
    this.#note = `Your last reply was rejected: ${reason.slice(0, 600)}\nReply again, following the protocol.`;
  }

  /** Forgets a pending rejection without recording anything. */
  clearRejection(): void {
    this.#note = "";
  }

  /** Records an accepted reply. */
  accept(raw: string): void {
    this.#note = "";
    this.#turns.push({ role: "assistant", content: raw });
  }

  /** Records what the tools returned (or any other message to the model). */
  tell(content: string): void {
    this.#turns.push({ role: "user", content });
  }

  /** Records a refinement: the request joins the last message, the reply and `after` follow. */
  recordRefinement(request: string, raw: string, after: string): void {
    const last = this.#turns.at(-1)!;
    this.#turns[this.#turns.length - 1] = { role: "user", content: `${last.content}\n\n${request}` };
    this.accept(raw);
    this.tell(after);
  }

  /** Drops every turn and starts again from `message`; returns the number of turns dropped. */
  reset(message: string): number {
    const dropped = this.#turns.length - 1;
    this.#turns = [{ role: "user", content: message }];
    return dropped;
  }

  /** Estimated tokens of a call with `system` over the conversation. */
  size(system: string): number {
    return estimatePromptTokens([system, ...this.#turns.map((t) => t.content)]);
  }
}

/** The sampling the user set among `options` (temperature, top-p), nothing else. */
export function samplingOf(options: { temperature?: number | undefined; topP?: number | undefined }): {
  temperature?: number;
  topP?: number;
} {
  return {
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.topP === undefined ? {} : { topP: options.topP }),
  };
}
