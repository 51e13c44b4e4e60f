/**
 * The WARP policy in AgentCPM-Report's own protocol (`protocol: native`): the codecs of
 * codecs.ts under the seed's control rules, which policy.ts's driver applies.
 *
 * - A reply that does not parse or validate is not explained back to the model: the state is
 *   unchanged and the same prompt is sampled again. Each failure is a `format-error` event and
 *   the call's recorded format error (its `llm-end` and `llm-call`); every call is a step of the
 *   step cap.
 * - The extend budget (`max_extend_step`, 5): entering the deepening spends one, so does each
 *   failed deepening answer; when it is spent the deepening ends.
 * - Before the run's first tool call, a search-state answer that finishes (`nop`) or writes
 *   instead of searching is asked once more, the prompt followed by the kit's NO_CALL_YET line
 *   (a `NO_CALL_YET` warning; the seed would only sample again until its step cap); insisting
 *   fails the run with `NO_RESEARCH`.
 */

import { didResearch, requireResearch } from "../../../kit/research-done.ts";
import type { RunContext } from "../../../kit/run-context.ts";
import type { RoleSampling } from "../../../llm/role-sampling.ts";
import type { DeepenAction } from "../planner.ts";
import type { WarpActions } from "../policy.ts";
import { NATIVE_EXTEND_BUDGET } from "../steps.ts";
import { agentcpmCodecs, type NativeSearchInput } from "./codecs.ts";
import { finishingInstead, parseTagged } from "./format.ts";
import type { NativeIntros } from "./prompts.ts";

/** Options of {@link nativeActions}. */
export interface NativePolicyOptions {
  /** Deepening entries plus failed deepening answers allowed. Default 5. */
  extendBudget?: number;
  /** The user's opening prose per prompt (the `systemPrompt` files), in place of Dossier's. */
  intros?: NativeIntros;
}

/** The native protocol's actions of one run. */
export function nativeActions(
  ctx: RunContext,
  sampling: RoleSampling,
  options: NativePolicyOptions = {},
): WarpActions {
  const codecs = agentcpmCodecs(ctx, sampling, options.intros);
  const budget = options.extendBudget ?? NATIVE_EXTEND_BUDGET;
  const spent = (): DeepenAction => ({ name: "terminate", reason: `extend budget spent (${budget})` });
  let extendTime = 0;
  return {
    search: {
      codec: codecs.search,
      refused: (raw, state: NativeSearchInput) => askOnceMore(ctx, raw, state),
    },
    initialize: { codec: codecs.initialize },
    write: { codec: codecs.write },
    deepen: {
      codec: codecs.deepen,
      // Entering the deepening spends one unit of the extend budget.
      enter: () => (extendTime++ >= budget ? spent() : undefined),
      // A failed answer spends one more; past the budget the deepening ends.
      refused: (_raw, state) => (extendTime++ >= budget ? { answer: spent() } : { again: state }),
    },
  };
}

/**
 * Before the run's first tool call, a search-state reply that finishes or writes instead of
 * searching is asked once more with the NO_CALL_YET line; a second one fails the run.
 */
function askOnceMore(ctx: RunContext, raw: string, state: NativeSearchInput): { again: NativeSearchInput } {
  const instead = didResearch(ctx) ? null : finishingInstead(parseTagged(raw).action);
  if (!instead) return { again: state };
  const did = instead === "finish" ? "answered nop" : "wrote";
  if (state.noCallYet)
    requireResearch(ctx, {
      stopReason: "completed",
      why: `the policy ${did} before its first tool call, and again when asked once more`,
    });
  ctx.emit({
    type: "warning",
    code: "NO_CALL_YET",
    message: `the policy ${did} before its first tool call; asked once more`,
  });
  return { again: { ...state, noCallYet: true } };
}
