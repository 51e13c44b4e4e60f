/**
 * The `tokens` export of a rollouts folder (`dossier train export DIR --format tokens`): every
 * rollout's model calls as token sequences with masks and log-probs (train/tokens/), one JSON
 * line each, with the run's reward and advantage when the folder has rewards (the named reward,
 * else its only rewards file; without one, `reward` and `advantage` are null). A run of a group
 * that `train reward`'s DAPO filter dropped is left out, as in `rl`. A forced-expansion warp run
 * is read pruned at its best draft as `rl` reads it (export/trained-run.ts): its calls up to that
 * draft with the ids the server gave, then the relabelled TERMINATE (never sampled: tokenized
 * with the checkpoint's tokenizer, else skipped with the reason), no later call.
 */

import type { Role } from "../../llm/model-spec.ts";
import type { RecordedRun } from "../recorded-run.ts";
import { readRolloutRuns } from "../rollouts/rollout-dir.ts";
import { folderRewards, joinRewards, rewardNamesIn } from "../score/reward-file.ts";
import type { CheckpointTokenizer } from "../tokens/checkpoint-tokenizer.ts";
import { type TokenRecord, type TokenRun, tokenRecords } from "../tokens/token-record.ts";
import type { ExportResult, ExportSkip } from "./export-result.ts";
import { trainedRun } from "./trained-run.ts";

/** Options of {@link tokensExport}. */
export interface TokensExportOptions {
  /** The reward whose records to use (default: the folder's only one, if any). */
  reward?: string;
  roles?: readonly Role[];
  /** The checkpoint's tokenizer, for calls without server ids (see checkpoint-tokenizer.ts). */
  tokenizer?: CheckpointTokenizer;
  retokenize?: "missing" | "always";
  policyVersion?: string;
  /** Forced-expansion warp runs pruned at their best draft (default true; trained-run.ts). */
  warpPruning?: boolean;
}

/** The folder's token records, and the reward used (null without one). */
export function tokensExport(
  dir: string,
  options: TokensExportOptions,
): ExportResult<TokenRecord> & { reward: string | null } {
  const runs: RecordedRun[] = readRolloutRuns(dir);
  const skipped: ExportSkip[] = [];
  let inputs: TokenRun[] = runs.map((run) => ({ run, reward: null, advantage: null }));
  let reward: string | null = null;
  if (options.reward !== undefined || rewardNamesIn(dir).length === 1) {
    const rewards = folderRewards(dir, options.reward);
    reward = rewards.name;
    const { scored, unscored } = joinRewards(runs, rewards.records);
    for (const runId of unscored) skipped.push({ runId, reason: `no ${rewards.name} reward recorded` });
    inputs = [];
    for (const { run, record } of scored) {
      if (record.dropped) {
        skipped.push({
          runId: run.runId,
          reason: `group ${run.row.id}: dropped by the reward's DAPO filter`,
        });
        continue;
      }
      inputs.push({
        run,
        reward: { reward: record.reward, components: record.components },
        advantage: record.advantage,
      });
    }
  }
  const trained: TokenRun[] = [];
  for (const input of inputs) {
    const t = trainedRun(input.run, { pruning: options.warpPruning, reprompt: false }, skipped);
    if (t) trained.push({ ...input, run: t.run, relabelled: t.pruned?.terminate.callId ?? null });
  }
  const result = tokenRecords(trained, {
    ...(options.tokenizer ? { tokenizer: options.tokenizer } : {}),
    ...(options.retokenize ? { retokenize: options.retokenize } : {}),
    ...(options.policyVersion !== undefined ? { policyVersion: options.policyVersion } : {}),
    ...(options.roles ? { roles: options.roles } : {}),
  });
  return { records: result.records, skipped: [...skipped, ...result.skipped], reward };
}
