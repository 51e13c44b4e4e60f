/**
 * The state agent on one chunk (Eq. 4): it returns the whole memory and the plan, rewritten, and
 * they replace the old ones. The rewrite is checked (memory.ts): a rule broken is the call's
 * format error, re-asked once; a rewrite that breaks one again is repaired and taken
 * (`MEMORY_REPAIRED`).
 */

import type { StructuredResult } from "../../llm/structured.ts";
import type { ChunkRun } from "./chunk-update.ts";
import {
  describeProblems,
  isClean,
  type RewriteRules,
  readRewrite,
  repairRewrite,
  rewriteProblems,
  type StateReply,
  stateReplySchema,
} from "./memory.ts";
import { statePrompt, stateSystem } from "./prompts.ts";
import { MAX_RESPONSE_TOKENS, type MamsState, planAsList } from "./protocol.ts";

/** One chunk as the agents read it. */
export interface ChunkView {
  chunk: string;
  index: number;
  of: number;
  /** Evidence ids the chunk shows. */
  ids: string[];
}

/** The state agent's request for a chunk, from the state before it. */
export function stateRequest(run: ChunkRun, before: MamsState, view: ChunkView) {
  return {
    system: stateSystem(run.ctx.currentDate),
    prompt: statePrompt(run.ctx.query, before, view.chunk, {
      index: view.index,
      of: view.of,
      budget: run.memoryBudget,
    }),
  };
}

/** Asks the state agent; a rewrite that breaks a rule is refused once (a format error, re-asked). */
export function askState(run: ChunkRun, before: MamsState, view: ChunkView) {
  const { ctx, act } = run;
  const rules: RewriteRules = { before: before.memory, known: run.shown, budget: run.memoryBudget };
  let refused = false;
  const accept = (value: StateReply): string | null => {
    const problems = rewriteProblems(readRewrite(value.memory, before.memory).facts, rules);
    if (isClean(problems) || refused) return null;
    refused = true;
    return `the memory cannot be taken: ${describeProblems(problems, rules.budget)}.`;
  };
  return act("STATE_FALLBACK", `state update of chunk ${view.index} failed; memory and plan kept`, () =>
    ctx.inScope("state", () =>
      ctx.structured({
        role: "state",
        schema: stateReplySchema,
        ...stateRequest(run, before, view),
        maxOutputTokens: MAX_RESPONSE_TOKENS,
        accept,
      }),
    ),
  );
}

/** Takes the state agent's reply: its memory and plan replace the old ones. */
export function applyState(
  run: ChunkRun,
  before: MamsState,
  view: ChunkView,
  reply: StructuredResult<StateReply>,
): void {
  const { ctx, state, figures } = run;
  const value = reply.value;
  const rules: RewriteRules = { before: before.memory, known: run.shown, budget: run.memoryBudget };
  const read = readRewrite(value.memory, before.memory);
  const problems = rewriteProblems(read.facts, rules);
  let memory = read.facts;
  if (!isClean(problems)) {
    const repair = repairRewrite(read.facts, rules);
    memory = repair.memory;
    figures.memoryRepairs++;
    figures.factsCut += repair.factsCut;
    ctx.emit({
      type: "warning",
      code: "MEMORY_REPAIRED",
      message: `chunk ${view.index}: the rewritten memory still broke a rule (${describeProblems(problems, rules.budget)}); ${problems.emptied ? "the old memory kept" : `${repair.idsRemoved} unknown id(s) removed, ${repair.factsCut} fact(s) cut to the budget`}`,
    });
  }
  state.memory = memory;
  figures.memoryRewrites++;
  figures.provenanceCarried += read.carried;
  if (value.plan?.trim()) state.plan = planAsList(value.plan);
  const planChanged = state.plan !== before.plan;
  if (planChanged) figures.planUpdates++;
  run.record(
    "state",
    { chunk: view.index, of: view.of, evidence: view.ids },
    { ...value, taken: memory.map((f) => f.text), carried: read.carried, planChanged },
  );
}
