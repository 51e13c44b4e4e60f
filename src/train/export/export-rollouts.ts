/**
 * A rollouts folder as one training file (`dossier train export DIR --format F --out FILE`):
 *
 * - `sft`: the recorded runs' calls (or agent trajectories) as chat conversations; with a
 *   reward, only each question's top-k runs by reward (Self-SFT), optionally above a minimum;
 * - `dpo`: preference pairs of runs of one question, the best against the worst, by reward
 *   (a gap of at least `margin`);
 * - `rl`: scored samples with the group advantage (GRPO or RLOO, optionally after DAPO's
 *   filter);
 * - `verl`: the folder's question rows as verl's Parquet dataset;
 * - `tokens`: the rollouts' calls as token ids with masks and log-probs (export/tokens.ts).
 *
 * `dpo` and `rl` need the folder's rewards (`dossier train reward`); `sft` uses them when a
 * reward is named or the folder holds exactly one.
 */

import { DossierError } from "../../core/errors.ts";
import type { Role } from "../../llm/model-spec.ts";
import { dpoPairs } from "../curation/dpo-pairs.ts";
import { selfSftSelection } from "../curation/self-sft.ts";
import type { RecordedRun } from "../recorded-run.ts";
import { readRolloutRows, readRolloutRuns } from "../rollouts/rollout-dir.ts";
import { folderRewards, joinRewards, rewardNamesIn } from "../score/reward-file.ts";
import type { RewardRecord } from "../score/score-runs.ts";
import { dpoRecords } from "./dpo.ts";
import type { ExportSkip } from "./export-result.ts";
import { rlRecords } from "./rl.ts";
import { sftRecords } from "./sft.ts";
import { type TokensExportOptions, tokensExport } from "./tokens.ts";
import { tokensParquet } from "./tokens-parquet.ts";
import { verlParquet, verlRecords } from "./verl.ts";
import { jsonlText } from "./write.ts";

/** The export formats. */
export const EXPORT_FORMATS = ["sft", "dpo", "rl", "verl", "tokens"] as const;
/** An export format. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Options of {@link exportRollouts}. */
export interface ExportRolloutsOptions {
  format: string;
  /** The reward whose records to use (default: the folder's only one). */
  reward?: string;
  /** sft: one line per call (default) or per agent trajectory; rl: per call (default) or per run. */
  unit?: "call" | "trajectory" | "run";
  /** sft and rl (unit call): only calls of these roles. */
  roles?: readonly Role[];
  /** sft: runs kept per question, best first (with a reward; default all). */
  topK?: number;
  /** sft: only runs with at least this reward. */
  minReward?: number;
  /** dpo: the smallest reward gap of a pair (default 0: any positive gap). */
  margin?: number;
  /** rl: GRPO (default) or RLOO. */
  advantage?: "grpo" | "rloo";
  /** rl: DAPO's filter. */
  dropUniformGroups?: boolean;
  /** sft, rl and tokens: forced-expansion warp runs pruned at their best draft (default true; trained-run.ts). */
  warpPruning?: boolean;
  /** tokens: the checkpoint's tokenizer, for calls without server ids, and when to use it; the policy's version. */
  tokens?: Pick<TokensExportOptions, "tokenizer" | "retokenize" | "policyVersion"> & {
    /** Parquet bytes instead of JSON Lines (export/tokens-parquet.ts). */
    parquet?: boolean;
  };
}

/** What an export produced. */
export interface RolloutExport {
  format: ExportFormat;
  content: string | Uint8Array;
  records: number;
  skipped: ExportSkip[];
  /** The reward used, if any. */
  reward: string | null;
}

/** Refuses an unknown format. */
export function exportFormat(name: string): ExportFormat {
  if (!(EXPORT_FORMATS as readonly string[]).includes(name))
    throw new DossierError(
      "INPUT_INVALID",
      `unknown export format "${name}" (known: ${EXPORT_FORMATS.join(", ")})`,
    );
  return name as ExportFormat;
}

/** The training file of a rollouts folder (see the module comment). */
export function exportRollouts(dir: string, options: ExportRolloutsOptions): RolloutExport {
  const format = exportFormat(options.format);
  if (format === "verl") {
    const records = verlRecords(readRolloutRows(dir));
    return { format, content: verlParquet(records), records: records.length, skipped: [], reward: null };
  }
  if (format === "tokens") {
    const r = tokensExport(dir, {
      ...options.tokens,
      ...(options.reward ? { reward: options.reward } : {}),
      ...(options.roles ? { roles: options.roles } : {}),
      ...(options.warpPruning === undefined ? {} : { warpPruning: options.warpPruning }),
    });
    return {
      format,
      content: options.tokens?.parquet ? tokensParquet(r.records) : jsonlText(r.records),
      records: r.records.length,
      skipped: r.skipped,
      reward: r.reward,
    };
  }
  const runs = readRolloutRuns(dir);
  const roles = options.roles ? { roles: options.roles } : {};
  if (format === "sft") {
    if (options.unit === "run")
      throw new DossierError("INPUT_INVALID", "an sft export is per call or per trajectory");
    const useReward =
      options.reward !== undefined ||
      options.topK !== undefined ||
      options.minReward !== undefined ||
      rewardNamesIn(dir).length === 1;
    let chosen: RecordedRun[] = runs;
    let reward: string | null = null;
    if (useReward) {
      const rewards = folderRewards(dir, options.reward);
      reward = rewards.name;
      const { scored } = joinRewards(runs, rewards.records);
      chosen = selfSftSelection(
        scored.map(({ run, record }) => ({ input: run.row.id, output: run, reward: record.reward })),
        {
          k: options.topK ?? Number.MAX_SAFE_INTEGER,
          ...(options.minReward === undefined ? {} : { minReward: options.minReward }),
        },
      ).map((o) => o.output);
    }
    const result = sftRecords(chosen, {
      unit: options.unit === "trajectory" ? "trajectory" : "call",
      ...roles,
      ...(options.warpPruning === false ? { warpPruning: false } : {}),
    });
    return {
      format,
      content: jsonlText(result.records),
      records: result.records.length,
      skipped: result.skipped,
      reward,
    };
  }
  const rewards = folderRewards(dir, options.reward);
  const { scored } = joinRewards(runs, rewards.records);
  if (format === "dpo") {
    const pairs = dpoPairs(
      scored.map(({ run, record }) => ({ input: run.row.id, output: run, reward: record.reward })),
      { margin: options.margin ?? 0 },
    );
    const result = dpoRecords(pairs, { metadata: true });
    return {
      format,
      content: jsonlText(result.records),
      records: result.records.length,
      skipped: result.skipped,
      reward: rewards.name,
    };
  }
  // By default the advantages are those `train reward` computed (its groups dropped by DAPO's
  // filter stay out); --advantage or --dapo here computes them again.
  const recompute = options.advantage !== undefined || options.dropUniformGroups === true;
  const kept = recompute ? scored : scored.filter(({ record }) => !record.dropped);
  // Computed again, the advantages keep the estimator the rewards were scored with unless
  // --advantage names another: --dapo alone never switches RLOO to GRPO.
  const estimator = options.advantage ?? recordedEstimator(scored.map(({ record }) => record));
  const result = rlRecords(
    kept.map(({ run, record }) => ({
      run,
      reward: { reward: record.reward, components: record.components },
    })),
    {
      unit: options.unit ?? "call",
      ...(estimator ? { advantage: estimator } : {}),
      dropUniformGroups: options.dropUniformGroups === true,
      ...roles,
      ...(options.warpPruning === false ? { warpPruning: false } : {}),
    },
  );
  const advantageOf = new Map(kept.map(({ record }) => [record.runId, record.advantage]));
  const records = recompute
    ? result.records
    : result.records.map((r) => ({ ...r, advantage: advantageOf.get(r.run_id) ?? r.advantage }));
  const skipped = [
    ...scored
      .filter(({ record }) => !recompute && record.dropped)
      .map(({ run }) => ({
        runId: run.runId,
        reason: `group ${run.row.id}: dropped by the reward's DAPO filter`,
      })),
    ...result.skipped,
  ];
  return { format, content: jsonlText(records), records: records.length, skipped, reward: rewards.name };
}

/** The one estimator a rewards file's records name, or undefined (none named, or several). */
function recordedEstimator(records: readonly RewardRecord[]): "grpo" | "rloo" | undefined {
  const named = new Set(records.flatMap((r) => (r.estimator ? [r.estimator] : [])));
  if (named.size > 1)
    throw new DossierError(
      "INPUT_INVALID",
      "the rewards file mixes GRPO and RLOO advantages; name the estimator with --advantage",
    );
  return [...named][0];
}
