/**
 * The unforced decision request a forced-expansion warp run records on each forced deepening
 * decision (`state.unforced` of its `trajectory-step`), and on the engine's relabel marker when the
 * cut is the last draft: the request the policy would have had at that state had it not been
 * forced to expand — TERMINATE offered, the ordinary expansion cap. Trajectory pruning answers it
 * TERMINATE at the cut (warp-pruned-run.ts).
 *
 * It is the protocol codec's request, before the model client adds anything. In the JSON
 * protocol, structured output then appends an instruction to the system prompt: the schema as a
 * type for a model that reads it in the prompt (`instruction`; the forced request's is
 * `forcedInstruction`), or one sentence, the same for both requests, for a provider that shows the
 * schema itself. {@link unforcedSystem} carries that addition over from the forced call as it was
 * recorded, so the relabelled prompt is exactly what the model would have read.
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import type { RecordedCall, RecordedMessage } from "../recorded-call.ts";

/** A recorded unforced decision request. */
export const unforcedDecisionSchema = z.object({
  protocol: z.enum(["json", "native"]),
  system: z.string().optional(),
  messages: z.array(z.object({ role: z.enum(["user", "assistant"]), content: z.string() })).min(1),
  responseSchema: z.record(z.string(), z.unknown()).optional(),
  structured: z
    .object({ forcedSystem: z.string(), forcedInstruction: z.string(), instruction: z.string() })
    .optional(),
  /** TERMINATE as the protocol's reply. */
  terminate: z.string().min(1),
});
/** A recorded unforced decision request. */
export type UnforcedDecision = z.infer<typeof unforcedDecisionSchema>;

/** The unforced request an action's state records, or null (none, or not one). */
export function unforcedOf(state: unknown): UnforcedDecision | null {
  if (typeof state !== "object" || state === null || !("unforced" in state)) return null;
  const parsed = unforcedDecisionSchema.safeParse((state as { unforced: unknown }).unforced);
  return parsed.success ? parsed.data : null;
}

/**
 * The system prompt the model would have read with the unforced request, given a forced decision
 * call as recorded (`forced`): the unforced codec's system prompt, followed by what structured
 * output added to the forced one — the unforced schema's instruction where it added the forced
 * schema's, else the same words. Null when the request has no system prompt (native protocol).
 * INPUT_INVALID when the forced call's system prompt is not the recorded forced one.
 */
export function unforcedSystem(forced: RecordedCall, unforced: UnforcedDecision): string | null {
  if (unforced.protocol === "native" || !unforced.structured) return unforced.system ?? null;
  const recorded = forced.messages[0]?.role === "system" ? forced.messages[0].content : "";
  const { forcedSystem, forcedInstruction, instruction } = unforced.structured;
  if (!recorded.startsWith(forcedSystem))
    throw new DossierError(
      "INPUT_INVALID",
      `call ${forced.callId} was not asked with the forced decision's instructions`,
    );
  const added = recorded.slice(forcedSystem.length);
  const carried = added === `\n\n${forcedInstruction}` ? `\n\n${instruction}` : added;
  return `${unforced.system ?? ""}${carried}`;
}

/**
 * The call the policy would have made with the unforced request, answered `completion`: the
 * forced call's model, role, scope, step, sampling and times, the unforced messages (system prompt
 * as {@link unforcedSystem} gives it) and, when the forced call carried a response schema (native
 * structured output), the unforced one. No usage, no tokens: it was never sent.
 */
export function unforcedCall(
  forced: RecordedCall,
  unforced: UnforcedDecision,
  completion: string,
  callId: string,
): RecordedCall {
  const system = unforcedSystem(forced, unforced);
  const messages: RecordedMessage[] = [
    ...(system === null ? [] : [{ role: "system" as const, content: system }]),
    ...unforced.messages.map((m) => ({ role: m.role, content: m.content })),
  ];
  return {
    runId: forced.runId,
    callId,
    role: forced.role,
    ...(forced.scope === undefined ? {} : { scope: forced.scope }),
    step: forced.step,
    model: forced.model,
    messages,
    ...(forced.responseSchema && unforced.responseSchema ? { responseSchema: unforced.responseSchema } : {}),
    sampling: { ...forced.sampling },
    completion,
    formatErrors: [],
    usage: { inputTokens: null, outputTokens: null, costUsd: null },
    startedAt: forced.startedAt,
    endedAt: forced.endedAt,
  };
}
