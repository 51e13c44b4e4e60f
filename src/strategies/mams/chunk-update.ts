/**
 * One observation chunk worked into the mams state (Eq. 4–5): the state agent updates the memory
 * and the plan — new facts merged in, corrections rewriting a fact in place, the plan's steps
 * marked done or added; past the memory budget it rewrites the memory whole, compressed — and the
 * report agent integrates the chunk into the report. Both read the state as it was before the
 * chunk, so they run concurrently. Every call that rewrites state may answer with up to 16,384
 * tokens (the seed's maximum response length); the report agent's cap leaves a tight token
 * budget the room the state update needs.
 */

import type { z } from "zod";
import type { GuardedAction } from "../../kit/guarded-action.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { estimatePromptTokens, estimateTokens } from "../../llm/token-estimate.ts";
import type { MamsFigures } from "./figures.ts";
import { reportPrompt, reportSystem, statePrompt, stateSystem } from "./prompts.ts";
import {
  type CompressReply,
  compressedMemory,
  compressReplySchema,
  evidenceIdsIn,
  MAX_RESPONSE_TOKENS,
  type MamsState,
  mergeMemory,
  onlyAppended,
  planAsList,
  renderMemory,
  reportReplySchema,
  STATE_UPDATE_TOKENS,
  type StateReply,
  stateReplySchema,
} from "./protocol.ts";

/** What a chunk update works on: the run's state and figures, shared with the loop. */
export interface ChunkRun {
  ctx: RunContext;
  /** The run's state, updated in place. */
  state: MamsState;
  figures: MamsFigures;
  /** Evidence ids shown to the report agent: the only ones the report may cite. */
  shown: Set<string>;
  /** The loop's guarded model action (a budget limit stops exploration). */
  act: GuardedAction;
  /** Records a `trajectory-step`. */
  record(action: string, before: Record<string, unknown>, answer: unknown): void;
  language: string;
  /** Estimated tokens the memory may hold before it is compressed. */
  memoryBudget: number;
}

/** The state and report agents on one chunk, concurrently, both from the state before it. */
export async function updateFromChunk(
  run: ChunkRun,
  chunk: string,
  index: number,
  of: number,
): Promise<void> {
  const { ctx, state, figures, shown, act, record, language, memoryBudget } = run;
  figures.chunks++;
  const before: MamsState = { memory: state.memory, plan: state.plan, report: state.report };
  const ids = evidenceIdsIn(chunk);
  for (const id of ids) shown.add(id);
  ctx.emit({ type: "phase", phase: "updating", detail: `chunk ${index} of ${of}` });
  const memoryTokens = estimateTokens(renderMemory(before.memory));
  const compress = memoryTokens > memoryBudget ? { memoryTokens, budget: memoryBudget } : undefined;
  const stateReq = {
    system: stateSystem(ctx.currentDate),
    prompt: statePrompt(ctx.query, before, chunk, index, of, compress),
  };
  const reportReq = {
    system: reportSystem(ctx.currentDate, language),
    prompt: reportPrompt(ctx.query, before, chunk, index, of),
  };
  // A compressing reply rewrites the whole memory; an ordinary one lists what is new.
  const stateCap = compress ? MAX_RESPONSE_TOKENS : STATE_UPDATE_TOKENS;
  const stateCall = <T>(schema: z.ZodType<T>) =>
    act("STATE_FALLBACK", `state update of chunk ${index} failed; memory and plan kept`, () =>
      ctx.inScope("state", () =>
        ctx.structured({ role: "state", schema, ...stateReq, maxOutputTokens: stateCap }),
      ),
    );
  // The report agent asks first: under a tight token budget the report is what the run
  // delivers, but it leaves the concurrent state update the room it needs.
  const reportCap = outputRoom(
    ctx,
    estimatePromptTokens([reportReq.system, reportReq.prompt]) +
      estimatePromptTokens([stateReq.system, stateReq.prompt]) +
      stateCap,
  );
  const [reportReply, stateReply] = await Promise.all([
    act("REPORT_FALLBACK", `report update of chunk ${index} failed; report kept`, () =>
      ctx.inScope("report", () =>
        ctx.structured({
          role: "writer",
          schema: reportReplySchema,
          ...reportReq,
          maxOutputTokens: reportCap,
        }),
      ),
    ),
    compress ? stateCall(compressReplySchema) : stateCall(stateReplySchema),
  ]);
  if (stateReply) {
    const value = stateReply.value as StateReply | CompressReply;
    const planBefore = before.plan;
    if (value.plan?.trim()) state.plan = planAsList(value.plan);
    const planChanged = state.plan !== planBefore;
    if (planChanged) figures.planUpdates++;
    if ("memory" in value) {
      state.memory = compressedMemory(value);
      figures.memoryCompressions++;
      const after = estimateTokens(renderMemory(state.memory));
      ctx.emit({
        type: "warning",
        code: after > memoryBudget ? "MEMORY_OVER_BUDGET" : "MEMORY_COMPRESSED",
        message: `chunk ${index}: memory compressed from ${before.memory.length} facts (~${memoryTokens} tokens) to ${state.memory.length} (~${after}); budget ${memoryBudget}`,
      });
      record("state", { chunk: index, of, evidence: ids, compress: true }, { ...value, planChanged });
    } else {
      const merged = mergeMemory(before.memory, value);
      state.memory = merged.memory;
      figures.factsAdded += merged.added;
      figures.factsCorrected += merged.corrected;
      record(
        "state",
        { chunk: index, of, evidence: ids },
        { ...value, added: merged.added, corrected: merged.corrected, planChanged },
      );
    }
  }
  if (reportReply?.value.report.trim()) {
    const next = reportReply.value.report.trim();
    if (onlyAppended(before.report, next)) {
      figures.appendOnlyUpdates++;
      ctx.emit({
        type: "warning",
        code: "REPORT_APPENDED",
        message: `chunk ${index}: the report update only appended to the report`,
      });
    }
    state.report = next;
    record("report", { chunk: index, of, evidence: ids }, { report: next });
  }
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
