/**
 * The named steps of the WARP loop (run.ts), each over a run in progress (run-state.ts), with the
 * seed's section and equation numbers (AgentCPM-Report §2.2–2.3):
 *
 * - {@link initialize}: SEARCH broadly (q_0 → C_0), then INITIALIZE the level-1 outline O_0 (Eq. 1);
 * - {@link draftLeaves}: SEARCH (Eq. 2) and WRITE (Eq. 3) every unwritten leaf in document order;
 * - {@link snapshot}: the draft D_i after a drafting cycle;
 * - {@link decide}: with the whole draft in view, EXPAND one section (Eq. 4) or TERMINATE (Eq. 5);
 * - {@link expand}: O_{i+1} ← O_i ⊕ EXPAND;
 * - {@link bestDraft}: trajectory pruning (§2.3.1): the best-scored draft of a forced run.
 *
 * Each falls back as run.ts documents when its action fails, and does nothing more once
 * exploration stopped.
 */

import { exceededLimit } from "../../core/budget.ts";
import {
  createOutline,
  expandSection,
  type FlatOutlineSection,
  setSectionContent,
} from "../../core/outline.ts";
import { extractive } from "../../kit/section-writer.ts";
import { expandableSections, idOfPosition, outlineSkeleton, positionOf, unwrittenLeaves } from "./draft.ts";
import type { ExpandAction } from "./planner.ts";
import { type DraftSnapshot, draftScorer, pruneTrajectory } from "./pruning.ts";
import { MAX_INITIAL_PASSAGES, MAX_SECTION_PASSAGES } from "./retrieval.ts";
import type { WarpRun } from "./run-state.ts";

/** Eq. (1): a broad survey, then the level-1 outline (one section per keyword when it fails). */
export async function initialize(run: WarpRun): Promise<void> {
  const { ctx, state, language } = run;
  const before = run.seen();
  const { value: survey } = await run.act(
    "SEARCH_FALLBACK",
    "survey keywords failed; searching the question",
    () => run.policy.search({ state, language }),
  );
  const keywords = survey?.keywords ?? [ctx.query.slice(0, 200)];
  run.record("search", survey ?? { name: "search", keywords }, before);
  const passages = run.stopReason ? [] : await run.search(keywords, MAX_INITIAL_PASSAGES);
  const init = run.stopReason
    ? null
    : (
        await run.act("INIT_FALLBACK", "outline failed; one section per survey keyword", () =>
          run.policy.initialize({ question: ctx.query, passages, language }),
        )
      ).value;
  const drafts =
    init?.sections ?? keywords.map((k) => ({ title: k, plan: `What the evidence says about ${k}` }));
  run.record(
    "initialize",
    init ?? { name: "initialize", title: ctx.query, sections: drafts, fallback: true },
    run.seen({ passages: passages.map((p) => p.id) }),
  );
  state.title = init?.title ?? ctx.query;
  state.outline = createOutline(drafts, { minSections: 1, maxSections: 12 });
  ctx.emit({ type: "outline-update", outline: state.outline, reason: "initialize" });
}

/** Eqs. (2)–(3): every unwritten leaf not attempted yet, in document order, one phase each. */
export async function draftLeaves(run: WarpRun): Promise<void> {
  const { ctx } = run;
  for (;;) {
    const leaf = unwrittenLeaves(run.state.outline).find((s) => !run.attempted.has(s.id));
    if (!leaf || run.stopReason) return;
    // The iteration limit counts deepening decisions; the leaves of the last expansion are still drafted.
    const guard = run.shouldStop();
    if (guard && guard !== "budget:iterations") return run.stop(guard);
    run.attempted.add(leaf.id);
    // Each section depends on the draft before it: one phase per section.
    ctx.emit({ type: "phase", phase: "drafting", detail: positionOf(leaf.id) });
    await ctx.inScope(`section:${leaf.id}`, () => draftSection(run, leaf));
  }
}

/** SEARCH then WRITE one leaf; no passage leaves it out, a failed WRITE writes it extractively. */
async function draftSection(run: WarpRun, leaf: FlatOutlineSection): Promise<void> {
  const { ctx, state, language } = run;
  const position = positionOf(leaf.id);
  const before = run.seen({ target: position });
  const { value: chosen } = await run.act(
    "SEARCH_FALLBACK",
    `keywords for ${position} failed; searching its title`,
    () => run.policy.search({ state, target: leaf, language }),
  );
  if (!chosen && run.stopReason) return; // a budget limit or the step cap: no more searching
  const keywords = chosen?.keywords ?? [leaf.title];
  run.record("search", chosen ?? { name: "search", keywords }, before);
  const passages = await run.search(keywords, MAX_SECTION_PASSAGES, `${leaf.title}: ${leaf.plan}`);
  if (passages.length === 0) {
    ctx.emit({ type: "warning", code: "NO_EVIDENCE", message: `no passage found for ${position}; left out` });
    return;
  }
  const { value: written, capped } = run.stopReason
    ? { value: null, capped: false }
    : await run.act("SECTION_FALLBACK", `${position} written extractively`, () =>
        run.policy.write({ state, target: leaf, passages, language }),
      );
  if (capped) return; // the step cap: the section stays unwritten
  if (written) run.writes++;
  const content = written?.content ?? extractive(passages);
  run.record(
    "write",
    written ?? { name: "write", position, content, fallback: true },
    run.seen({ target: position, passages: passages.map((p) => p.id) }),
  );
  state.outline = setSectionContent(state.outline, leaf.id, content);
  run.citations.set(leaf.id, new Set(passages.map((p) => p.id)));
  ctx.emit({
    type: "section-written",
    sectionId: leaf.id,
    title: leaf.title,
    chars: content.length,
    citations: (content.match(/\[E\d+/g) ?? []).length,
  });
}

/** The draft as it stands: kept for pruning, and a `draft-snapshot` event. */
export function snapshot(run: WarpRun): void {
  const { step, expansions } = run;
  const snap: DraftSnapshot = { index: run.snapshots.length, step, expansions, outline: run.state.outline };
  run.snapshots.push(snap);
  run.ctx.emit({
    type: "draft-snapshot",
    index: snap.index,
    step,
    expansions,
    markdown: run.render(snap, "completed").markdown,
    outline: outlineSkeleton(snap.outline),
  });
}

/**
 * Eqs. (4)–(5): the next deepening decision — a section to expand, or why the deepening ends
 * (`""` when exploration stopped: the stop reason says why).
 */
export async function decide(run: WarpRun): Promise<{ end: string } | { expand: ExpandAction }> {
  const { ctx, state, language, forced, cap } = run;
  const end = deepeningEnd(run);
  if (end !== null) return { end };
  ctx.emit({ type: "phase", phase: "deepening", detail: `expansion ${run.expansions + 1}` });
  const before = run.seen(run.unforced());
  const { value: answer } = await ctx.inScope("planner", () =>
    run.act("DEEPEN_FALLBACK", "deepening decision failed; ending the deepening", () =>
      run.policy.deepen({ state, language, forced, expansionsLeft: cap - run.expansions }),
    ),
  );
  if (!answer) return { end: run.stopReason ? "" : "deepening decision failed" };
  if (answer.name === "terminate" && answer.reason) return { end: answer.reason };
  run.record(answer.name, answer, before);
  if (answer.name === "terminate") return { end: "the policy terminated" };
  return { expand: answer };
}

/** Why the deepening ends before its next decision, or null; a limit that stops exploring is `""`. */
function deepeningEnd(run: WarpRun): string | null {
  if (run.stopReason) return "";
  if (run.expansions >= run.cap)
    return `${run.forced ? "forced expansions" : "expansion cap"} reached (${run.cap})`;
  const guard = run.shouldStop();
  if (guard) {
    run.stop(guard);
    return "";
  }
  if (run.citations.size === 0) return "nothing was written: no evidence to deepen";
  if (expandableSections(run.state).length === 0) return "no section left to expand";
  try {
    run.ctx.budget.startIteration();
  } catch (error) {
    run.stop(`budget:${exceededLimit(error) ?? "iterations"}`);
    return "";
  }
  return null;
}

/** O_{i+1} ← O_i ⊕ EXPAND{k*}: the section's new subsections join the outline, unwritten. */
export function expand(run: WarpRun, answer: ExpandAction): void {
  const id = idOfPosition(answer.position)!;
  run.state.outline = expandSection(run.state.outline, id, answer.subsections);
  run.expanded.add(id);
  run.expansions++;
  run.ctx.emit({ type: "outline-update", outline: run.state.outline, reason: `expand ${answer.position}` });
}

/**
 * §2.3.1 trajectory pruning: in forced-expansion mode every draft is scored and the trajectory
 * cut at the best one (relabelled TERMINATE); otherwise the last draft.
 */
export async function bestDraft(run: WarpRun): Promise<DraftSnapshot> {
  const { ctx, snapshots } = run;
  if (!run.forced || snapshots.length <= 1) return snapshots.at(-1)!;
  ctx.emit({ type: "phase", phase: "scoring", detail: `${snapshots.length} drafts` });
  const scorer = draftScorer(ctx, run.options.scorer ?? "rubric");
  const { cut, scores } = await ctx.inScope("scorer", () =>
    pruneTrajectory(ctx, { snapshots, scorer, render: (s) => run.render(s, "completed") }),
  );
  const final = snapshots[cut]!;
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
    // At the last draft no decision followed: the marker carries the state there and its
    // unforced request, to relabel.
    state: {
      cut,
      relabelled: true,
      ...(cut === snapshots.length - 1 ? { ...run.seen(), ...run.unforced() } : {}),
    },
    answer: { name: "terminate" },
  });
  return final;
}
