/**
 * Scoring recorded rollouts with one of the seeds' rewards (`dossier train reward`): every run
 * gets a reward record with the scalar reward, every component and the reward's other output
 * (per-step rewards, verdicts, weights…), and — over the runs of each rollout group — its
 * advantage: GRPO (default) or RLOO, optionally after DAPO's dynamic-sampling filter, which
 * marks the groups whose rewards are all equal as dropped (their runs get no advantage).
 *
 * What each reward needs from the rows is checked for every run before any judge is asked:
 * smtl and minddr-search's ORM a reference answer, minddr-search the key entities,
 * minddr-report a reference report and RACE criteria, rubric a query-specific rubric.
 * rubric-generator scores a rubric generator's completions over preference rows, not
 * rollouts, and is refused here.
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { runConcurrently } from "../../eval/concurrency.ts";
import type { GrpoOptions } from "../advantages/grpo.ts";
import { runAdvantages, runGroupId } from "../export/rl.ts";
import { rowRaceCriteria, rowRubricItems } from "../question-row.ts";
import type { RecordedRun } from "../recorded-run.ts";
import type { AnswerJudge } from "../rewards/answer-judge.ts";
import type { SearchLambdas } from "../rewards/minddr-lambdas.ts";
import { minddrReportReward, type RaceScorer } from "../rewards/minddr-report.ts";
import { minddrSearchReward, searchComposite } from "../rewards/minddr-search.ts";
import { REWARD_NAMES, type RewardName, rewardByName } from "../rewards/registry.ts";
import { type RubricItemRater, rubricReward } from "../rewards/rubric.ts";
import { smtlReward } from "../rewards/smtl.ts";
import { warpReward } from "../rewards/warp.ts";
import type { WarpJudges } from "../rewards/warp-atomic.ts";
import { isAtomicSample, warpAtomicSampleReward } from "../rewards/warp-atomic-sample.ts";
import type { PipelineJudge } from "../rewards/warp-pipeline.ts";

/** One line of a rewards file. */
export const rewardRecordSchema = z.object({
  runId: z.string().min(1),
  questionId: z.string().min(1),
  groupId: z.string().min(1),
  groupIndex: z.number().int().nonnegative().nullable(),
  strategy: z.string().min(1),
  /** The reward function's name. */
  rewardName: z.string().min(1),
  reward: z.number().finite(),
  components: z.record(z.string(), z.unknown()),
  /** The reward's other output (per-step rewards, verdicts, weights …). */
  details: z.record(z.string(), z.unknown()),
  /** The run's advantage in its group; null when its group was dropped. */
  advantage: z.number().finite().nullable(),
  /** True when DAPO's filter dropped the run's group (all rewards equal). */
  dropped: z.boolean(),
  /** The estimator the advantage came from (absent in files written before it was recorded). */
  estimator: z.enum(["grpo", "rloo"]).optional(),
});
/** One line of a rewards file. */
export type RewardRecord = z.infer<typeof rewardRecordSchema>;

/** The judges the rewards use; each reward needs only its own. */
export interface RewardJudges {
  /** smtl: the answer judge. */
  answer?: AnswerJudge;
  /** minddr-search: the ORM judges (an odd number). */
  orm?: readonly AnswerJudge[];
  /** warp: the pipeline judge. */
  pipeline?: PipelineJudge;
  /** minddr-report: the RACE scorer. */
  race?: RaceScorer;
  /** rubric: the item rater. */
  rate?: RubricItemRater;
  /** warp-atomic: the plan and paragraph quality and faithfulness judges (each optional). */
  warp?: WarpJudges;
}

/** Rewards that score rollouts. */
export const RUN_REWARDS = REWARD_NAMES.filter((name) => rewardByName(name).input === "run");

/** Options of {@link scoreRuns}. */
export interface ScoreRunsOptions {
  reward: string;
  judges: RewardJudges;
  /** GRPO (default) or RLOO. */
  advantage?: "grpo" | "rloo";
  grpo?: GrpoOptions;
  /** DAPO's filter: groups whose rewards are all equal are dropped. */
  dropUniformGroups?: boolean;
  /** Runs scored at once (default 4). */
  concurrency?: number;
  /** Records of an earlier scoring, by run id: those runs are not judged again. */
  earlier?: ReadonlyMap<string, RewardRecord>;
  /**
   * minddr-search: the Eq. 9 coefficients (default the schedule's initial ones). A run scored
   * before with other coefficients gets its reward combined again from its kept components, with
   * no judge asked.
   */
  lambdas?: SearchLambdas;
  signal?: AbortSignal;
  onScored?: (done: number, total: number) => void;
}

/** Refuses an unknown reward, a reward that does not score runs, and runs whose rows lack what it needs. */
export function checkRunsForReward(name: string, runs: readonly RecordedRun[]): RewardName {
  const entry = rewardByName(name);
  if (entry.input !== "run")
    throw new DossierError(
      "INPUT_INVALID",
      `the ${name} reward scores a rubric generator's completions over preference rows, not rollouts (use rubricGeneratorReward from dossier/train); rollout rewards: ${RUN_REWARDS.join(", ")}`,
    );
  const needs: Partial<Record<RewardName, [string, (r: RecordedRun) => boolean]>> = {
    smtl: ["a reference answer (answer)", (r) => r.row.answer !== undefined],
    "minddr-search": ["key entities (entities)", (r) => (r.row.entities?.length ?? 0) > 0],
    "minddr-report": [
      "a reference report (reference) and RACE criteria (rubric)",
      (r) => r.row.reference !== undefined && rowRaceCriteria(r.row) !== null,
    ],
    rubric: ["a query-specific rubric (rubric)", (r) => rowRubricItems(r.row) !== null],
  };
  // A reward that reads one strategy's trajectory (WARP's drafts) scores only that strategy's runs.
  const only: Partial<Record<RewardName, string>> = { warp: "warp", "warp-atomic": "warp" };
  const strategy = only[entry.name];
  const others = strategy
    ? [...new Set(runs.filter((r) => r.strategy !== strategy).map((r) => r.strategy))]
    : [];
  if (others.length > 0)
    throw new DossierError(
      "INPUT_INVALID",
      `the ${name} reward scores ${strategy} rollouts (it reads their drafts); these are ${others.join(", ")} rollouts`,
    );
  // Atomic-skill samples (train rollouts --atomic) are scored by warp-atomic, and only they are.
  const atomic = runs.filter(isAtomicSample).length;
  if (entry.name === "warp-atomic" && atomic < runs.length)
    throw new DossierError(
      "INPUT_INVALID",
      "the warp-atomic reward scores atomic-skill samples (train rollouts --atomic); these are whole rollouts (use --reward warp)",
    );
  if (entry.name !== "warp-atomic" && atomic > 0)
    throw new DossierError(
      "INPUT_INVALID",
      `these are atomic-skill samples (train rollouts --atomic): score them with --reward warp-atomic, not ${name}`,
    );
  const need = needs[entry.name];
  const lacking = need ? [...new Set(runs.filter((r) => !need[1](r)).map((r) => r.row.id))] : [];
  if (need && lacking.length > 0)
    throw new DossierError(
      "INPUT_INVALID",
      `the ${name} reward needs ${need[0]} on every row; question${lacking.length > 1 ? "s" : ""} ${lacking.slice(0, 5).join(", ")}${lacking.length > 5 ? " …" : ""} ha${lacking.length > 1 ? "ve" : "s"} none`,
    );
  return entry.name;
}

function judge<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new DossierError("INPUT_INVALID", `the reward needs ${what}`);
  return value;
}

/** One run's reward result (the reward function's own output). */
export async function rewardOfRun(
  name: RewardName,
  run: RecordedRun,
  judges: RewardJudges,
  lambdas?: SearchLambdas,
): Promise<{ reward: number; components: Record<string, unknown> } & Record<string, unknown>> {
  switch (name) {
    case "smtl":
      return { ...(await smtlReward(run, { judge: judge(judges.answer, "an answer judge") })) };
    case "minddr-search":
      return {
        ...(await minddrSearchReward(run, {
          judges: judge(judges.orm, "ORM judges"),
          ...(lambdas ? { lambdas } : {}),
        })),
      };
    case "minddr-report":
      return { ...(await minddrReportReward(run, { race: judge(judges.race, "a RACE scorer") })) };
    case "warp":
      return { ...(await warpReward(run, { pipeline: judge(judges.pipeline, "a pipeline judge") })) };
    case "warp-atomic":
      return { ...(await warpAtomicSampleReward(run, judges.warp ?? {})) };
    case "rubric":
      return { ...(await rubricReward(run, { rate: judge(judges.rate, "a rubric item rater") })) };
    default:
      throw new DossierError("INPUT_INVALID", `the ${name} reward does not score rollouts`);
  }
}

/** Scores every run and computes the group advantages (see the module comment). */
export async function scoreRuns(
  runs: readonly RecordedRun[],
  options: ScoreRunsOptions,
): Promise<RewardRecord[]> {
  const name = checkRunsForReward(options.reward, runs);
  let done = 0;
  const settled = await runConcurrently(
    runs,
    async (run) => {
      const before = options.earlier?.get(run.runId);
      const scored =
        before && before.rewardName === name
          ? kept(before, options.lambdas)
          : await rewardOfRun(name, run, options.judges, options.lambdas).then(
              ({ reward, components, ...details }) => ({ reward, components, details }),
            );
      options.onScored?.(++done, runs.length);
      return scored;
    },
    { concurrency: options.concurrency ?? 4, ...(options.signal ? { signal: options.signal } : {}) },
  );
  const failed = settled.findIndex((s) => !s.ok);
  if (failed >= 0) {
    const error = (settled[failed] as { ok: false; error: DossierError }).error;
    throw new DossierError(error.code, `run ${runs[failed]!.runId}: ${error.message}`, { cause: error });
  }
  const scores = settled.map(
    (s) =>
      (
        s as {
          ok: true;
          value: { reward: number; components: Record<string, unknown>; details: Record<string, unknown> };
        }
      ).value,
  );
  const { advantages, dropped } = runAdvantages(
    runs.map((run, i) => ({ run, reward: scores[i]! })),
    {
      ...(options.advantage ? { advantage: options.advantage } : {}),
      ...(options.grpo ? { grpo: options.grpo } : {}),
      dropUniformGroups: options.dropUniformGroups === true,
    },
  );
  const droppedGroups = new Set(dropped);
  return runs.map((run, i) =>
    rewardRecordSchema.parse({
      runId: run.runId,
      questionId: run.row.id,
      groupId: runGroupId(run),
      groupIndex: run.group?.index ?? null,
      strategy: run.strategy,
      rewardName: name,
      reward: scores[i]!.reward,
      components: scores[i]!.components,
      details: JSON.parse(JSON.stringify(scores[i]!.details)),
      advantage: advantages.get(run.runId) ?? null,
      dropped: droppedGroups.has(runGroupId(run)),
      estimator: options.advantage ?? "grpo",
    }),
  );
}

/**
 * A kept record's reward; a minddr-search reward scored with other coefficients is combined
 * again (Eq. 9) from its components and per-step rewards, which the coefficients do not change.
 */
function kept(
  before: RewardRecord,
  lambdas: SearchLambdas | undefined,
): { reward: number; components: Record<string, unknown>; details: Record<string, unknown> } {
  const same = { reward: before.reward, components: before.components, details: before.details };
  if (before.rewardName !== "minddr-search" || !lambdas) return same;
  if (JSON.stringify(before.details.lambdas) === JSON.stringify(lambdas)) return same;
  const c = before.components as { orm: number | null; prm: number };
  const steps = (before.details.steps ?? []) as { tool: number; format: number }[];
  const reward = searchComposite(
    { orm: c.orm, prm: c.prm, tool: steps.map((t) => t.tool), format: steps.map((t) => t.format) },
    lambdas,
  );
  return { reward, components: before.components, details: { ...before.details, lambdas: { ...lambdas } } };
}
