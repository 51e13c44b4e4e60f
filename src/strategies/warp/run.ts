/**
 * The warp strategy (seed: AgentCPM-Report, WARP). The policy acts on the state S = (question,
 * outline, draft, citations) with five actions, every prompt rebuilt from the state (no chat
 * history). The answers are structured output (`protocol: json`, the default) or the seed
 * checkpoints' own tag protocol (`protocol: native`, see native/policy.ts); either way each
 * action is a codec of the protocol, driven by policy.ts:
 *
 * 1. Initialize: SEARCH broadly (≤ 20 passages), then INITIALIZE a level-1 outline of 3–12
 *    sections with writing plans.
 * 2. Evidence-based drafting: each unwritten leaf in depth-first document order gets a SEARCH
 *    (1–5 keywords conditioned on the question, outline and draft; top 5 per keyword and search
 *    tool, ≤ 10 passages; on the web at least one page read for the section, see retrieval.ts)
 *    and a WRITE (paragraphs citing 1–12 of those passages).
 * 3. Reasoning-driven deepening: with the whole draft in view, EXPAND one level-1/2 section that
 *    was never expanded into 2–7 subsections and draft them, or TERMINATE; at most 12
 *    expansions (`maxExpansions`; the native protocol also spends the seed's extend budget of 5).
 *
 * Every model call of the policy is a step; at the seed's cap of 140 steps (`maxSteps`) the run
 * stops exploring (stop reason `step-cap`) and writes its report from the draft so far.
 *
 * Forced-expansion mode (`forceExpand: N`) offers no TERMINATE and expands until N; every draft
 * is a `draft-snapshot` event, scored, and the best one is the report (see pruning.ts).
 * Every action is a `trajectory-step` event with the state it saw (outline skeleton, sections
 * written, passages shown) and its answer (a WRITE answer holds the section's content), so the
 * whole trajectory can be replayed from the log.
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
 * `BUDGET_EXCEEDED` with the limit), and so does one whose report is only headings.
 */

import { exceededLimit } from "../../core/budget.ts";
import {
  createOutline,
  expandSection,
  type FlatOutlineSection,
  setSectionContent,
} from "../../core/outline.ts";
import type { Evidence } from "../../core/source.ts";
import { explorationGuard } from "../../kit/exploration-budget.ts";
import { guardedAction } from "../../kit/guarded-action.ts";
import { assembleReport } from "../../kit/report-assembly.ts";
import { requireResearch } from "../../kit/research-done.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { extractive } from "../../kit/section-writer.ts";
import type { ResearchOutcome } from "../types.ts";
import {
  draftParts,
  expandableSections,
  idOfPosition,
  outlineSkeleton,
  positionOf,
  pruneEmpty,
  unwrittenLeaves,
  type WarpState,
} from "./draft.ts";
import { nativeActions } from "./native/policy.ts";
import { jsonActions, warpPolicy } from "./policy.ts";
import { type DraftSnapshot, draftScorer, pruneTrajectory, type WarpScorerName } from "./pruning.ts";
import { MAX_INITIAL_PASSAGES, MAX_SECTION_PASSAGES, retrieve } from "./retrieval.ts";
import { type Sampling, type WarpProtocol, warpSampling } from "./sampling.ts";
import { DEFAULT_MAX_STEPS, NATIVE_EXTEND_BUDGET, StepMeter } from "./steps.ts";

/** Default cap of expansions. */
export const DEFAULT_MAX_EXPANSIONS = 12;

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
  /** The user's sampling settings (over the protocol's defaults). */
  sampling?: Sampling;
  /** Share of tokens/cost/time after which exploration stops. Default 0.9. */
  explorationShare?: number;
}

/** Runs the warp strategy in a run context. */
export async function runWarp(ctx: RunContext, options: WarpOptions): Promise<ResearchOutcome> {
  const forced = options.forceExpand !== undefined;
  const cap = forced ? options.forceExpand! : (options.maxExpansions ?? DEFAULT_MAX_EXPANSIONS);
  const shouldStop = explorationGuard(ctx, options.explorationShare ?? 0.9);
  const { language, tools } = options;
  const protocol = options.protocol ?? "json";
  const steps = new StepMeter(options.maxSteps ?? DEFAULT_MAX_STEPS);
  const sampling = warpSampling(protocol, options.sampling);
  // Forced expansion in the native protocol: the extend budget leaves room for the N expansions.
  const extendBudget = forced ? Math.max(NATIVE_EXTEND_BUDGET, cap) : NATIVE_EXTEND_BUDGET;
  const actions =
    protocol === "native" ? nativeActions(ctx, sampling, { extendBudget }) : jsonActions(ctx, sampling);
  const policy = warpPolicy(ctx, steps, actions);
  const pagesRead = new Set<string>();
  const citations = new Map<string, ReadonlySet<string>>();
  const expanded = new Set<string>();
  const state: WarpState = {
    question: ctx.query,
    title: ctx.query,
    outline: { sections: [] },
    citations,
    expanded,
  };
  const snapshots: DraftSnapshot[] = [];
  let stopReason: string | null = null;
  let step = 0;
  let expansions = 0;

  const stop = (reason: string) => {
    stopReason ??= reason;
  };
  /** The state as an action sees it (the draft itself is replayed from earlier WRITE answers). */
  const seen = (extra: Record<string, unknown> = {}) => ({
    outline: outlineSkeleton(state.outline),
    written: [...citations.keys()],
    expanded: [...expanded],
    ...extra,
  });
  const record = (action: string, answer: unknown, before: Record<string, unknown>) =>
    ctx.emit({ type: "trajectory-step", step: ++step, action, state: before, answer });
  const guarded = guardedAction(ctx, stop);
  /**
   * One policy action: null when it failed (a warning; the caller falls back) or when a limit
   * stopped exploration — a budget limit, or the step cap (`capped`: no answer, no fallback).
   * Cancellation rethrows.
   */
  const act = async <T>(
    code: string,
    message: string,
    fn: () => Promise<T | null>,
  ): Promise<{ value: T | null; capped: boolean }> => {
    if (steps.spent()) {
      stop("step-cap");
      return { value: null, capped: true };
    }
    let capped = false;
    const value = await guarded(code, message, async () => {
      const answer = await fn();
      capped = answer === null;
      return answer;
    });
    return { value, capped };
  };
  const search = async (keywords: string[], cap: number, goal = ""): Promise<Evidence[]> => {
    const pages = goal ? (options.readPages ?? 1) : 0;
    const r = await retrieve(ctx, tools, keywords, cap, { pages, goal, alreadyRead: pagesRead });
    if (r.budget) stop(`budget:${r.budget}`);
    return r.passages;
  };

  // 1. Initialize: a broad survey, then the level-1 outline.
  ctx.emit({ type: "phase", phase: "initializing" });
  await ctx.inScope("planner", async () => {
    const before = seen();
    const { value: survey } = await act(
      "SEARCH_FALLBACK",
      "survey keywords failed; searching the question",
      () => policy.search({ state, language }),
    );
    const keywords = survey?.keywords ?? [ctx.query.slice(0, 200)];
    record("search", survey ?? { name: "search", keywords }, before);
    const passages = stopReason ? [] : await search(keywords, MAX_INITIAL_PASSAGES);
    const init = stopReason
      ? null
      : (
          await act("INIT_FALLBACK", "outline failed; one section per survey keyword", () =>
            policy.initialize({ question: ctx.query, passages, language }),
          )
        ).value;
    const drafts =
      init?.sections ?? keywords.map((k) => ({ title: k, plan: `What the evidence says about ${k}` }));
    record(
      "initialize",
      init ?? { name: "initialize", title: ctx.query, sections: drafts, fallback: true },
      seen({ passages: passages.map((p) => p.id) }),
    );
    state.title = init?.title ?? ctx.query;
    state.outline = createOutline(drafts, { minSections: 1, maxSections: 12 });
    ctx.emit({ type: "outline-update", outline: state.outline, reason: "initialize" });
  });

  // 2. Evidence-based drafting of every unwritten leaf, in document order.
  const attempted = new Set<string>();
  const draftLeaves = async () => {
    for (;;) {
      const leaf = unwrittenLeaves(state.outline).find((s) => !attempted.has(s.id));
      if (!leaf || stopReason) return;
      // The iteration limit counts deepening decisions; the leaves of the last expansion are still drafted.
      const guard = shouldStop();
      if (guard && guard !== "budget:iterations") return stop(guard);
      attempted.add(leaf.id);
      // Each section depends on the draft before it: one phase per section.
      ctx.emit({ type: "phase", phase: "drafting", detail: positionOf(leaf.id) });
      await ctx.inScope(`section:${leaf.id}`, () => draftSection(leaf));
    }
  };
  const draftSection = async (leaf: FlatOutlineSection) => {
    const position = positionOf(leaf.id);
    const before = seen({ target: position });
    const { value: chosen } = await act(
      "SEARCH_FALLBACK",
      `keywords for ${position} failed; searching its title`,
      () => policy.search({ state, target: leaf, language }),
    );
    if (!chosen && stopReason) return; // a budget limit or the step cap: no more searching
    const keywords = chosen?.keywords ?? [leaf.title];
    record("search", chosen ?? { name: "search", keywords }, before);
    const passages = await search(keywords, MAX_SECTION_PASSAGES, `${leaf.title}: ${leaf.plan}`);
    if (passages.length === 0) {
      ctx.emit({
        type: "warning",
        code: "NO_EVIDENCE",
        message: `no passage found for ${position}; left out`,
      });
      return;
    }
    const { value: written, capped } = stopReason
      ? { value: null, capped: false }
      : await act("SECTION_FALLBACK", `${position} written extractively`, () =>
          policy.write({ state, target: leaf, passages, language }),
        );
    if (capped) return; // the step cap: the section stays unwritten
    const content = written?.content ?? extractive(passages);
    record(
      "write",
      written ?? { name: "write", position, content, fallback: true },
      seen({ target: position, passages: passages.map((p) => p.id) }),
    );
    state.outline = setSectionContent(state.outline, leaf.id, content);
    citations.set(leaf.id, new Set(passages.map((p) => p.id)));
    ctx.emit({
      type: "section-written",
      sectionId: leaf.id,
      title: leaf.title,
      chars: content.length,
      citations: (content.match(/\[E\d+/g) ?? []).length,
    });
  };
  const snapshot = () => {
    const snap: DraftSnapshot = { index: snapshots.length, step, expansions, outline: state.outline };
    snapshots.push(snap);
    ctx.emit({
      type: "draft-snapshot",
      index: snap.index,
      step,
      expansions,
      markdown: render(snap, "completed").markdown,
      outline: outlineSkeleton(snap.outline),
    });
  };
  const render = (snap: DraftSnapshot, reason: string) =>
    assembleReport(ctx, {
      title: state.title,
      outline: pruneEmpty(snap.outline),
      parts: draftParts({ outline: snap.outline, citations }),
      language,
      stopReason: reason,
    });

  await draftLeaves();
  snapshot();

  // 3. Reasoning-driven deepening: expand one section and draft it, or terminate.
  let ended = "";
  while (!stopReason) {
    if (expansions >= cap) {
      ended = `${forced ? "forced expansions" : "expansion cap"} reached (${cap})`;
      break;
    }
    const guard = shouldStop();
    if (guard) {
      stop(guard);
      break;
    }
    if (citations.size === 0) {
      ended = "nothing was written: no evidence to deepen";
      break;
    }
    if (expandableSections(state).length === 0) {
      ended = "no section left to expand";
      break;
    }
    try {
      ctx.budget.startIteration();
    } catch (error) {
      stop(`budget:${exceededLimit(error) ?? "iterations"}`);
      break;
    }
    ctx.emit({ type: "phase", phase: "deepening", detail: `expansion ${expansions + 1}` });
    const before = seen();
    const { value: answer } = await ctx.inScope("planner", () =>
      act("DEEPEN_FALLBACK", "deepening decision failed; ending the deepening", () =>
        policy.deepen({ state, language, forced, expansionsLeft: cap - expansions }),
      ),
    );
    if (!answer) {
      if (!stopReason) ended = "deepening decision failed";
      break;
    }
    if (answer.name === "terminate" && answer.reason) {
      ended = answer.reason;
      break;
    }
    record(answer.name, answer, before);
    if (answer.name === "terminate") {
      ended = "the policy terminated";
      break;
    }
    const id = idOfPosition(answer.position)!;
    state.outline = expandSection(state.outline, id, answer.subsections);
    expanded.add(id);
    expansions++;
    ctx.emit({ type: "outline-update", outline: state.outline, reason: `expand ${answer.position}` });
    await draftLeaves();
    snapshot();
  }
  ctx.emit({
    type: "decision",
    decision: "stop",
    reason: stopReason ? `exploration stopped: ${stopReason}` : ended,
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

  // Forced-expansion mode: score every draft and cut the trajectory at the best one.
  let final = snapshots.at(-1)!;
  if (forced && snapshots.length > 1) {
    ctx.emit({ type: "phase", phase: "scoring", detail: `${snapshots.length} drafts` });
    const scorer = draftScorer(ctx, options.scorer ?? "rubric");
    const { cut, scores } = await ctx.inScope("scorer", () =>
      pruneTrajectory(ctx, { snapshots, scorer, render: (s) => render(s, "completed") }),
    );
    final = snapshots[cut]!;
    ctx.emit({
      type: "decision",
      decision: "stop",
      reason: `trajectory cut at draft ${cut} (${scorer.name} score ${scores[cut] ?? "unknown"})`,
      details: { cut, step: final.step, expansions: final.expansions, scores, scorer: scorer.name },
    });
    ctx.emit({
      type: "trajectory-step",
      step: final.step + 1,
      action: "terminate",
      state: { cut, relabelled: true },
      answer: { name: "terminate" },
    });
  }
  const report = render(final, reason);
  requireResearch(ctx, { stopReason: reason, body: report.body });
  return { stopReason: reason, report };
}
