/**
 * One observation chunk worked into the mams state (Eq. 4–5): the state agent rewrites the memory
 * and the plan, which replace the old ones (state-update.ts), and the report agent integrates the
 * chunk into the report, citing the sources it is shown (report-update.ts). Both read the state
 * as it was before the chunk, so they run concurrently. Every call that rewrites state may answer
 * with up to 16,384 tokens (the seed's maximum response length); the report agent's cap leaves a
 * tight token budget the room the state update needs.
 */

import type { GuardedAction } from "../../kit/guarded-action.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { estimatePromptTokens } from "../../llm/token-estimate.ts";
import type { MamsFigures } from "./figures.ts";
import { evidenceIdsIn, MAX_RESPONSE_TOKENS, type MamsState } from "./protocol.ts";
import { applyReport, askReport, reportRequest } from "./report-update.ts";
import { applyState, askState, type ChunkView, stateRequest } from "./state-update.ts";

/** What a chunk update works on: the run's state and figures, shared with the loop. */
export interface ChunkRun {
  ctx: RunContext;
  /** The run's state, updated in place. */
  state: MamsState;
  figures: MamsFigures;
  /** Evidence ids shown to the agents: the only ones the memory and the report may cite. */
  shown: Set<string>;
  /** The loop's guarded model action (a budget limit stops exploration). */
  act: GuardedAction;
  /** Records a `trajectory-step`. */
  record(action: string, before: Record<string, unknown>, answer: unknown): void;
  language: string;
  /** Estimated tokens the memory may hold. */
  memoryBudget: number;
}

/** The state and report agents on one chunk, concurrently, both from the state before it. */
export async function updateFromChunk(
  run: ChunkRun,
  chunk: string,
  index: number,
  of: number,
): Promise<void> {
  const { ctx, state, figures, shown } = run;
  figures.chunks++;
  const before: MamsState = { memory: state.memory, plan: state.plan, report: state.report };
  const view: ChunkView = { chunk, index, of, ids: evidenceIdsIn(chunk) };
  for (const id of view.ids) shown.add(id);
  ctx.emit({ type: "phase", phase: "updating", detail: `chunk ${index} of ${of}` });
  const report = reportRequest(run, before, view);
  const stateReq = stateRequest(run, before, view);
  // The report agent asks first: under a tight token budget the report is what the run
  // delivers, but it leaves the concurrent state update the room it needs.
  const reportCap = outputRoom(
    ctx,
    estimatePromptTokens([report.system, report.prompt]) +
      estimatePromptTokens([stateReq.system, stateReq.prompt]) +
      MAX_RESPONSE_TOKENS,
  );
  const [reportReply, stateReply] = await Promise.all([
    askReport(run, report, view, reportCap),
    askState(run, before, view),
  ]);
  if (stateReply) applyState(run, before, view, stateReply);
  if (reportReply) applyReport(run, before, view, report.listing, reportReply);
}

/**
 * Output tokens the report agent may ask for: the seed's maximum response length, less what the
 * token budget must keep for `others` (the inputs and the state agent's output).
 */
function outputRoom(ctx: Pick<RunContext, "budget">, others: number): number {
  const { limits, used } = ctx.budget.snapshot();
  if (limits.maxTokens === undefined) return MAX_RESPONSE_TOKENS;
  return Math.max(1024, Math.min(MAX_RESPONSE_TOKENS, limits.maxTokens - used.tokens - others));
}
