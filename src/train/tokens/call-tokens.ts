/**
 * The token ids of a recorded call (runs with `recordTokens`; llm/token-capture.ts): the prompt
 * as the inference server tokenized it (the chat template applied), the sampled completion
 * tokens (the stop token included when the server lists it), the sampler's log-prob of each,
 * and whether the call's decoding was constrained to a JSON schema. Ids are whole or absent:
 * `null` when the server returned none (the export re-tokenizes such a call when given the
 * checkpoint's tokenizer, and says so).
 *
 * In the event log a call's prompt ids that extend the previous call's (same agent and role)
 * prompt and completion ids are stored as a prefix of them (`prefix: {callId, count}`, see
 * llm/call-recorder.ts); {@link decodeEventTokens} expands them.
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import type { EventOf } from "../../core/events.ts";

const tokenIds = z.array(z.number().int().nonnegative());

/** The token ids of one recorded call. */
export const callTokensSchema = z
  .object({
    /** The decoding was constrained to a JSON schema (guided decoding): a trainer cannot recompute it. */
    constrained: z.boolean(),
    promptIds: tokenIds.nullable(),
    completionIds: tokenIds.nullable(),
    /** One per completion id, as the server sampled them; null when the server returned none. */
    logprobs: z.array(z.number()).nullable(),
  })
  .superRefine((t, ctx) => {
    if ((t.promptIds === null) !== (t.completionIds === null))
      ctx.addIssue({ code: "custom", message: "prompt and completion ids come together or not at all" });
    if (t.logprobs !== null && t.logprobs.length !== (t.completionIds?.length ?? -1))
      ctx.addIssue({ code: "custom", path: ["logprobs"], message: "one log-prob per completion id" });
  });
/** The token ids of one recorded call. */
export type CallTokens = z.infer<typeof callTokensSchema>;

/** The ids a call's successor may extend: its prompt ids then its completion ids (null without ids). */
export function tipIds(tokens: CallTokens | undefined): number[] | null {
  return tokens?.promptIds && tokens.completionIds ? [...tokens.promptIds, ...tokens.completionIds] : null;
}

/**
 * The tokens of an `llm-call` event, its prefix resolved against `earlier` (the tokens of the call
 * it names); an `INPUT_INVALID` error when that call has no ids to take the prefix from.
 */
export function decodeEventTokens(
  e: Pick<EventOf<"llm-call">, "runId" | "callId" | "tokens">,
  earlier: (callId: string) => CallTokens | undefined,
): CallTokens | undefined {
  const t = e.tokens;
  if (!t) return undefined;
  let promptIds = t.promptIds;
  if (t.prefix && promptIds) {
    const tip = tipIds(earlier(t.prefix.callId));
    if (!tip || tip.length < t.prefix.count)
      throw new DossierError(
        "INPUT_INVALID",
        `run ${e.runId}: call ${e.callId} names ${t.prefix.count} token ids of call ${t.prefix.callId}, which has ${tip?.length ?? "no"} ids`,
      );
    promptIds = [...tip.slice(0, t.prefix.count), ...promptIds];
  }
  return { constrained: t.constrained, promptIds, completionIds: t.completionIds, logprobs: t.logprobs };
}
