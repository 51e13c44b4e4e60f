/**
 * The warp strategy (seed: AgentCPM-Report, WARP — Writing As Reasoning Policy, §2.2). The
 * policy acts on the state S = (question, outline, draft, citations) (§2.1) with five actions,
 * every prompt rebuilt from the state (no chat history). The answers are structured output
 * (`protocol: json`, the default) or the seed checkpoints' own tag protocol (`protocol: native`);
 * either way each action is a codec of the protocol, driven by policy.ts. The loop below is the
 * paper's, its steps in phases.ts:
 *
 * 1. Initialize (Eq. 1): SEARCH broadly (≤ 20 passages), then INITIALIZE a level-1 outline of
 *    3–12 sections with writing plans.
 * 2. Evidence-based drafting (Eqs. 2–3): each unwritten leaf in depth-first document order gets a
 *    SEARCH (1–5 keywords conditioned on the question, outline and draft; top 5 per keyword and
 *    search tool, ≤ 10 passages; on the web at least one page read for the section, see
 *    retrieval.ts) and a WRITE (paragraphs citing 1–12 of those passages).
 * 3. Reasoning-driven deepening (Eqs. 4–5): with the whole draft in view, EXPAND one level-1/2
 *    section that was never expanded into 2–7 subsections and draft them, or TERMINATE; at most
 *    12 expansions (`maxExpansions`; the native protocol also spends the seed's extend budget of 5).
 *
 * Every model call of the policy is a step; at the seed's cap of 140 steps (`maxSteps`) the run
 * stops exploring (stop reason `step-cap`) and writes its report from the draft so far.
 *
 * Forced-expansion mode (`forceExpand: N`) offers no TERMINATE and expands until N; every draft
 * is a `draft-snapshot` event, scored, and the best one is the report (trajectory pruning, §2.3.1,
 * see pruning.ts). Every action is a `trajectory-step` event with the state it saw (outline
 * skeleton, sections written, passages shown) and its answer (a WRITE answer holds the section's
 * content), so the whole trajectory can be replayed from the log.
 *
 * Fallbacks, each a `warning` event: a SEARCH that fails searches the section title
 * (`SEARCH_FALLBACK`); an INITIALIZE that fails outlines one section per keyword
 * (`INIT_FALLBACK`); a WRITE that fails writes an extractive list of the passages
 * (`SECTION_FALLBACK`); a section that finds no passage stays unwritten and is left out
 * (`NO_EVIDENCE`); a deepening answer that fails ends the deepening (`DEEPEN_FALLBACK`). At a
 * budget limit exploration stops and the report is written from the draft so far.
 *
 * The policy cannot end the run before research: the engine runs every SEARCH (a failed one
 * searches the question or title), and in the native protocol a `nop` or a write in place of
 * the first search is asked once more, then fails the run (`NO_RESEARCH`). A run stopped by the
 * step cap or a budget before its first tool call fails the same way (`NO_RESEARCH`, or
 * `BUDGET_EXCEEDED` with the limit), and so does one whose report is only headings. A run whose
 * policy never wrote a section successfully — every WRITE fell back to an extractive list — ends
 * with stop reason `no-research`: the run fails with `NO_RESEARCH`, its report kept.
 */

import { requireResearch } from "../../kit/research-done.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { RoleSampling } from "../../llm/role-sampling.ts";
import type { ResearchOutcome } from "../types.ts";
import type { NativeIntros } from "./native/prompts.ts";
import { bestDraft, decide, draftLeaves, expand, initialize, snapshot } from "./phases.ts";
import type { WarpScorerName } from "./pruning.ts";
import { reviewOutline } from "./review.ts";
import { WarpRun } from "./run-state.ts";
import type { WarpProtocol } from "./sampling.ts";

/** Options of {@link runWarp}. */
export interface WarpOptions {
  tools: ResearchTools;
  /** Language code the report is written in. */
  language: string;
  /** Most expansions in the deepening phase. Default 12. */
  maxExpansions?: number;
  /** Forced-expansion mode: expand exactly this many times (no TERMINATE), then prune. */
  forceExpand?: number;
  /** Scorer of the drafts in forced-expansion mode. Default `rubric`. */
  scorer?: WarpScorerName;
  /** Web pages read per section for verbatim excerpts (0: search snippets only). Default 1. */
  readPages?: number;
  /** Most model calls of the policy, re-asks included (the seed's `max_step`). Default 140. */
  maxSteps?: number;
  /** Answer protocol. Default `json`. */
  protocol?: WarpProtocol;
  /** The policy's sampling per role. Default: the protocol's stated table (sampling.ts). */
  sampling?: RoleSampling;
  /** Native protocol: the user's opening prose per prompt, in place of Dossier's. */
  intros?: NativeIntros;
  /** Share of tokens/cost/time after which exploration stops. Default 0.9. */
  explorationShare?: number;
}

/** Runs the warp strategy in a run context. */
export async function runWarp(ctx: RunContext, options: WarpOptions): Promise<ResearchOutcome> {
  const run = new WarpRun(ctx, options);

  // 1. Initialize (Eq. 1): a broad survey, then the level-1 outline O_0.
  ctx.emit({ type: "phase", phase: "initializing" });
  await ctx.inScope("planner", () => initialize(run));
  // With `reviewPlan` the run stops here until O_0 is reviewed (review.ts).
  reviewOutline(run);

  // 2. Evidence-based drafting (Eqs. 2–3) of every unwritten leaf, in document order.
  await draftLeaves(run);
  snapshot(run);

  // 3. Reasoning-driven deepening: EXPAND one section (Eq. 4) and draft it, or TERMINATE (Eq. 5).
  let decision = await decide(run);
  while ("expand" in decision) {
    expand(run, decision.expand);
    await draftLeaves(run);
    snapshot(run);
    decision = await decide(run);
  }
  const { stopReason, expansions, snapshots, steps, protocol } = run;
  ctx.emit({
    type: "decision",
    decision: "stop",
    reason: stopReason ? `exploration stopped: ${stopReason}` : decision.end,
    details: { expansions, snapshots: snapshots.length, steps: steps.used, protocol },
  });

  // A run that did no research (the step cap or a budget before the first tool call) fails.
  const reason = stopReason ?? "completed";
  requireResearch(ctx, {
    stopReason: reason,
    ...(ctx.budget.snapshot().used.toolCalls === 0
      ? { why: `exploration stopped (${reason}) before the first tool call` }
      : {}),
  });

  // Forced-expansion mode: every draft scored, the trajectory cut at the best one (§2.3.1).
  const final = run.writes === 0 ? noWrite(run, reason) : reason;
  const report = run.render(await bestDraft(run), final);
  requireResearch(ctx, { stopReason: reason, body: report.body });
  return { stopReason: final, report };
}

/**
 * The stop reason of a run whose policy never wrote a section (every WRITE failed, the drafts are
 * extractive lists): `no-research`, which fails the run with `NO_RESEARCH` and keeps its report.
 */
function noWrite(run: WarpRun, reason: string): string {
  const stopped = reason === "completed" ? "" : `; exploration stopped: ${reason}`;
  return `no-research: no WRITE of the policy succeeded (${run.citations.size} section(s) drafted as extractive lists)${stopped}`;
}
