/**
 * Trajectory pruning (seed §2.3.1, A.4): in forced-expansion mode the policy keeps expanding,
 * producing drafts D_0 … D_N of growing granularity. Each draft is kept as a snapshot, scored
 * by a scorer of the evaluation toolkit, and the best-scoring draft is the cut point: the
 * report is that draft, and the trajectory is relabelled to end there with TERMINATE.
 *
 * Scorers:
 * - `rubric`: a query rubric generated once for the question (rubricer role) scores each draft
 *   item by item (judge role), Σ w·v / Σ |w| — the toolkit's rubric score;
 * - `grounding`: the share of cited sentences supported by their excerpts (no model).
 * A draft whose scoring fails gets no score (null) and cannot be the cut point; when no draft
 * has a score, the last one is kept. Ties go to the earlier, shorter draft.
 */

import { isDossierError } from "../../core/errors.ts";
import type { Outline } from "../../core/outline.ts";
import type { ReportDocument } from "../../core/report.ts";
import { generateRubric } from "../../eval/rubric/rubric-generate.ts";
import { scoreReports } from "../../eval/rubric/rubric-judge.ts";
import type { QueryRubric } from "../../eval/rubric/rubric-types.ts";
import type { RunContext } from "../../kit/run-context.ts";

/** Scorer names. */
export const WARP_SCORERS = ["rubric", "grounding"] as const;
/** A scorer name. */
export type WarpScorerName = (typeof WARP_SCORERS)[number];

/** An intermediate draft. */
export interface DraftSnapshot {
  index: number;
  /** Trajectory step after which it was taken. */
  step: number;
  /** Expansions made before it. */
  expansions: number;
  outline: Outline;
}

/** Scores a draft, rendered as a report; null when it cannot be scored. */
export interface DraftScorer {
  name: string;
  score(report: ReportDocument): Promise<number | null>;
}

/** The scorer of that name, bound to the run. */
export function draftScorer(ctx: RunContext, name: WarpScorerName): DraftScorer {
  if (name === "grounding") return { name, score: async (report) => report.checks.groundedShare };
  let rubric: Promise<QueryRubric> | null = null;
  return {
    name,
    async score(report) {
      rubric ??= generateRubric(ctx.llm, ctx.query, {
        role: "rubricer",
        now: () => new Date(ctx.clock.now()).toISOString(),
      }).then((g) => {
        ctx.emit({ type: "rubric-update", kind: "query", rubric: g.rubric });
        return g.rubric;
      });
      const [scored] = await scoreReports(ctx.llm, await rubric, [{ name: `draft`, text: report.markdown }], {
        role: "judge",
        concurrency: ctx.options.concurrency,
        signal: ctx.signal,
      });
      return scored?.score.score ?? null;
    },
  };
}

/** Scores every snapshot (emitting draft-scored events); returns the index of the best one. */
export async function pruneTrajectory(
  ctx: RunContext,
  input: {
    snapshots: readonly DraftSnapshot[];
    render: (snapshot: DraftSnapshot) => ReportDocument;
    scorer: DraftScorer;
  },
): Promise<{ cut: number; scores: (number | null)[] }> {
  const scores: (number | null)[] = [];
  for (const snapshot of input.snapshots) {
    let score: number | null = null;
    try {
      score = await input.scorer.score(input.render(snapshot));
    } catch (error) {
      if (isDossierError(error, "CANCELLED") || ctx.signal.aborted) throw error;
      ctx.emit({
        type: "warning",
        code: "DRAFT_SCORE_FAILED",
        message: `draft ${snapshot.index} could not be scored (${isDossierError(error) ? error.code : "error"})`,
      });
    }
    scores.push(score);
    ctx.emit({ type: "draft-scored", index: snapshot.index, scorer: input.scorer.name, score });
  }
  return { cut: bestIndex(scores), scores };
}

/** The index of the highest score (the earliest on ties); the last index when none is scored. */
export function bestIndex(scores: readonly (number | null)[]): number {
  let best = -1;
  scores.forEach((s, i) => {
    if (s !== null && (best < 0 || s > scores[best]!)) best = i;
  });
  return best < 0 ? scores.length - 1 : best;
}
