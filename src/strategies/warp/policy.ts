/**
 * The WARP policy as run.ts drives it: the four model actions (SEARCH, INITIALIZE, WRITE,
 * EXPAND/TERMINATE) of the run's protocol, each a kit codec — `json` (structured output, any
 * model: the codecs beside searcher.ts, planner.ts and writer.ts) or `native` (AgentCPM-Report's
 * tags, native/codecs.ts, with the seed's rules of native/policy.ts) — and one driver for both:
 *
 * - Every model call is a step of the step cap (steps.ts); an action answers null when the cap is
 *   reached before it has a valid answer.
 * - A JSON codec's refused reply is re-asked with the reason (structured output; at most 2
 *   re-asks, and never more than the steps left). When no reply passes, the action fails
 *   (`STRUCTURED_OUTPUT_FAILED`) and the run takes its documented fallback.
 * - A text codec's refused reply is not explained to the model: a `format-error` event, and the
 *   same state is sampled again — unless the protocol's rule for the refusal changes the state
 *   or ends the action.
 *
 * Either way a refused reply is the recorded format error of the call that produced it (its
 * `llm-end` and `llm-call`), through the kit's sampleAction. A call that throws is a step (one
 * the budget refused is not, in the JSON protocol) and fails the action.
 */

import { DossierError, isDossierError } from "../../core/errors.ts";
import type { Codec, JsonCodec, TextCodec } from "../../kit/protocol/codec.ts";
import { type Sampled, sampleAction } from "../../kit/protocol/sample.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { RoleSampling } from "../../llm/role-sampling.ts";
import { DEFAULT_MAX_REPAIRS } from "../../llm/structured.ts";
import {
  type DeepenAction,
  type DeepenInput,
  deepenJsonCodec,
  type InitializeAction,
  type InitializeInput,
  initializeJsonCodec,
} from "./planner.ts";
import { type SearchAction, type SearchInput, searchJsonCodec } from "./searcher.ts";
import type { StepMeter } from "./steps.ts";
import { type WriteAction, type WriteInput, writeJsonCodec } from "./writer.ts";

/** What the native protocol keeps of an answer in the trajectory. */
export interface Thought {
  /** What the model thought before acting. */
  thought?: string;
  /** The seed's action name where it differs (`init-plan`, `extend-plan`, `nop`). */
  native?: string;
  /** The action as the model wrote it (a WRITE's content with its `\cite{…}` keys). */
  raw?: string;
}

/** An action of a protocol: its codec, and the protocol's rules around it. */
export interface ProtocolAction<S, A> {
  codec: Codec<S, A>;
  /** Called once as the action starts: an answer that needs no call, or undefined to sample. */
  enter?(state: S): A | undefined;
  /**
   * Text codecs: after a refused reply (`raw`), the state to sample next, or the answer that ends
   * the action. May throw. Absent: the same state again.
   */
  refused?(raw: string, state: S): { again: S } | { answer: A };
}

/** The four actions of a protocol. */
export interface WarpActions {
  search: ProtocolAction<SearchInput, SearchAction & Thought>;
  initialize: ProtocolAction<InitializeInput, InitializeAction & Thought>;
  write: ProtocolAction<WriteInput, WriteAction & Thought>;
  deepen: ProtocolAction<DeepenInput, DeepenAction & Thought>;
}

/** The actions of a WARP policy: null at the step cap; a failed action throws. */
export interface WarpPolicy {
  search(input: SearchInput): Promise<(SearchAction & Thought) | null>;
  initialize(input: InitializeInput): Promise<(InitializeAction & Thought) | null>;
  write(input: WriteInput): Promise<(WriteAction & Thought) | null>;
  deepen(input: DeepenInput): Promise<(DeepenAction & Thought) | null>;
}

/** The JSON protocol: the seed's action shapes as structured output, re-asked with the reason. */
export function jsonActions(ctx: RunContext, sampling: RoleSampling): WarpActions {
  return {
    search: { codec: searchJsonCodec(sampling) },
    initialize: { codec: initializeJsonCodec(ctx, sampling) },
    write: { codec: writeJsonCodec(ctx, sampling) },
    deepen: { codec: deepenJsonCodec(ctx, sampling) },
  };
}

/** The policy of one run over the actions of its protocol. */
export function warpPolicy(ctx: RunContext, steps: StepMeter, actions: WarpActions): WarpPolicy {
  const act = <S, A>(action: ProtocolAction<S, A>, state: S): Promise<A | null> => {
    const instead = action.enter?.(state);
    if (instead !== undefined) return Promise.resolve(instead);
    const { codec } = action;
    return codec.kind === "json"
      ? reask(ctx, steps, codec, state)
      : resample(ctx, steps, codec, state, action.refused);
  };
  return {
    search: (input) => act(actions.search, input),
    initialize: (input) => act(actions.initialize, input),
    write: (input) => act(actions.write, input),
    deepen: (input) => act(actions.deepen, input),
  };
}

/** One structured action: re-asked while repairs and steps are left, every call spent. */
async function reask<S, A>(
  ctx: RunContext,
  steps: StepMeter,
  codec: JsonCodec<S, A, unknown>,
  state: S,
): Promise<A | null> {
  const left = steps.left();
  if (left <= 0) return null;
  let sampled: Sampled<A>;
  try {
    sampled = await sampleAction(ctx, codec, state, { maxRepairs: Math.min(DEFAULT_MAX_REPAIRS, left - 1) });
  } catch (error) {
    steps.spend(isDossierError(error, "BUDGET_EXCEEDED") ? 0 : 1);
    throw error;
  }
  steps.spend(sampled.calls);
  if (sampled.kind === "action") return sampled.action;
  throw new DossierError(
    "STRUCTURED_OUTPUT_FAILED",
    `no valid answer after ${sampled.calls} calls: ${sampled.error}`,
    { details: { calls: sampled.calls } },
  );
}

/** One tagged action: the state sampled until a reply passes, one step a call. */
async function resample<S, A>(
  ctx: RunContext,
  steps: StepMeter,
  codec: TextCodec<S, A>,
  first: S,
  refused: ProtocolAction<S, A>["refused"],
): Promise<A | null> {
  let state = first;
  for (let attempt = 1; ; attempt++) {
    if (steps.spent()) return null;
    let sampled: Sampled<A>;
    try {
      sampled = await sampleAction(ctx, codec, state);
    } finally {
      steps.spend(1);
    }
    if (sampled.kind === "action") return sampled.action;
    ctx.emit({
      type: "format-error",
      callId: sampled.callId!,
      role: sampled.role,
      model: sampled.model!,
      attempt,
      error: sampled.error,
      excerpt: sampled.raw.slice(0, 300),
    });
    const next = refused?.(sampled.raw, state) ?? { again: state };
    if ("answer" in next) return next.answer;
    state = next.again;
  }
}
