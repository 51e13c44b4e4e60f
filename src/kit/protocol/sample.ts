/**
 * One model call through a codec ({@link sampleAction}): the request the codec renders, the reply
 * decoded inside the client's answer inspector, so a refused reply is the call's format error on
 * its `llm-end` and in the call recorder before the strategy sees it. Budget limits and provider
 * failures are not the codec's: they are thrown, and {@link stopOf} turns them into a loop's stop
 * reason.
 */

import { exceededLimit } from "../../core/budget.ts";
import { isDossierError } from "../../core/errors.ts";
import type { Role } from "../../llm/model-spec.ts";
import type { RunContext } from "../run-context.ts";
import type { Codec, Decoded } from "./codec.ts";

/** What one call through a codec gave. */
export type Sampled<A> =
  | ({ kind: "action"; action: A } & SampledCall)
  | ({ kind: "refused"; error: string } & SampledCall);

/** The call a reply came from: its raw text, the calls made, and (when known) its id and model. */
export interface SampledCall {
  raw: string;
  calls: number;
  /** Id and model of the last call made (absent when structured output failed on every call). */
  callId?: string;
  model?: string;
  /** The role the call served. */
  role: Role;
}

/** Options of {@link sampleAction}. */
export interface SampleOptions {
  /**
   * JSON codecs: re-asks after a refused reply, each naming the refusal (default 0: a refused
   * reply is the strategy's to handle). Text codecs are sampled once.
   */
  maxRepairs?: number;
}

/**
 * Samples one reply through `codec` for `state`. A JSON codec is asked through structured output
 * with no re-ask (a refused reply is the strategy's to handle); a text codec through a plain call.
 */
export async function sampleAction<S, A>(
  ctx: RunContext,
  codec: Codec<S, A>,
  state: S,
  options: SampleOptions = {},
): Promise<Sampled<A>> {
  if (codec.kind === "json") {
    const maxRepairs = options.maxRepairs ?? 0;
    const { schema, messages, ...request } = codec.request(state);
    let verdict: Decoded<A> | undefined;
    try {
      const r = await ctx.structured({
        ...request,
        schema,
        messages: messages.slice(0, -1),
        prompt: messages.at(-1)?.content ?? "",
        maxRepairs,
        accept: (value) => {
          verdict = codec.decode(value, state);
          return verdict.ok ? null : verdict.error;
        },
      });
      // A journal replay or a repaired answer passes the same check.
      verdict ??= codec.decode(r.value, state);
      const call = {
        raw: r.raw,
        calls: r.calls,
        role: request.role,
        ...(r.callId ? { callId: r.callId, model: r.model } : {}),
      };
      return verdict.ok
        ? { kind: "action", action: verdict.action, ...call }
        : { kind: "refused", error: verdict.error, ...call };
    } catch (error) {
      if (!isDossierError(error, "STRUCTURED_OUTPUT_FAILED")) throw error;
      const errors = (error.details.errors as string[] | undefined) ?? [];
      const calls = Number(error.details.calls ?? maxRepairs + 1);
      return { kind: "refused", error: errors.at(-1) ?? error.message, raw: "", calls, role: request.role };
    }
  }
  let verdict: Decoded<A> | undefined;
  const request = codec.request(state);
  const { result } = await ctx.llm.call(request, (text) => {
    verdict = codec.decode(text, state);
    return verdict.ok ? null : verdict.error;
  });
  verdict ??= codec.decode(result.text, state);
  const call = { raw: result.text, calls: 1, callId: result.callId, model: result.model, role: request.role };
  return verdict.ok
    ? { kind: "action", action: verdict.action, ...call }
    : { kind: "refused", error: verdict.error, ...call };
}

/** Why a call failed: `budget:<limit>` when a budget limit refused it, else the error's code. Cancellation is thrown on. */
export function failureOf(ctx: RunContext, error: unknown): string {
  if (isDossierError(error, "CANCELLED") || ctx.signal.aborted) throw error;
  const limit = exceededLimit(error);
  if (limit) return `budget:${limit}`;
  return isDossierError(error) ? error.code : "error";
}

/**
 * A failed call as a loop's stop reason: `budget:<limit>` when a budget limit refused it,
 * `error:<CODE>` otherwise (with a warning of `warningCode`). Cancellation is thrown on.
 */
export function stopOf(ctx: RunContext, error: unknown, warningCode: string): string {
  const why = failureOf(ctx, error);
  if (why.startsWith("budget:")) return why;
  ctx.emit({ type: "warning", code: warningCode, message: `model call failed (${why})` });
  return `error:${why}`;
}
