/**
 * `dossier train reward <dir> --reward NAME`: scores every recorded rollout of a folder with one
 * of the seeds' rewards, asking the configured judge model (`--judge` to choose another), and
 * writes `rewards-<name>.jsonl` there: one record per run with the reward, every component, the
 * reward's other output, and the run's advantage in its group (`--advantage grpo|rloo`; with
 * `--dapo`, groups whose rewards are all equal are marked dropped). Runs scored before are not
 * judged again unless `--rescore`. The reward, the advantage and the rows are checked before
 * any judge call.
 */

import { renameSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { DossierError } from "../../core/errors.ts";
import { terminalJson, terminalLine } from "../../core/terminal-text.ts";
import { CliExit } from "../errors.ts";
import type { CliIo } from "../io.ts";
import { type GlobalFlags, loadCliConfig } from "../settings.ts";

/** Flags of `dossier train reward`. */
export interface RewardFlags extends GlobalFlags {
  reward?: string;
  advantage: string;
  dapo?: boolean;
  judge?: string;
  concurrency?: string;
  rescore?: boolean;
  lambdas?: string;
  schedule?: string;
  json?: boolean;
}

/** Runs `dossier train reward`. Resolves to the exit code. */
export async function runTrainReward(io: CliIo, folder: string, flags: RewardFlags): Promise<number> {
  const [
    { rewardByName },
    { readRolloutRuns, rewardsPath },
    score,
    { readRewardRecords },
    judges,
    { createJudgeClient },
    lambdaFile,
    { searchBatchMetrics },
  ] = await Promise.all([
    import("../../train/rewards/registry.ts"),
    import("../../train/rollouts/rollout-dir.ts"),
    import("../../train/score/score-runs.ts"),
    import("../../train/score/reward-file.ts"),
    import("../../train/judges/llm-judges.ts"),
    import("../../eval/rubric/judge-client.ts"),
    import("../../train/score/lambda-schedule-file.ts"),
    import("../../train/rewards/minddr-search.ts"),
  ]);
  if (!flags.reward)
    throw new DossierError("INPUT_INVALID", `--reward is required (one of ${score.RUN_REWARDS.join(", ")})`);
  const name = rewardByName(flags.reward).name;
  if (flags.advantage !== "grpo" && flags.advantage !== "rloo")
    throw new DossierError("INPUT_INVALID", `--advantage must be grpo or rloo, got "${flags.advantage}"`);
  const concurrency = flags.concurrency === undefined ? 4 : Number(flags.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new DossierError(
      "INPUT_INVALID",
      `--concurrency must be a positive integer, got "${flags.concurrency}"`,
    );
  const dir = resolve(io.cwd, folder);
  const runs = readRolloutRuns(dir);
  score.checkRunsForReward(name, runs);
  if ((flags.lambdas || flags.schedule) && name !== "minddr-search")
    throw new DossierError(
      "INPUT_INVALID",
      "--lambdas and --schedule set minddr-search's coefficients (Eq. 9)",
    );
  if (flags.lambdas && flags.schedule)
    throw new DossierError("INPUT_INVALID", "give --lambdas or --schedule, not both");
  const schedulePath = flags.schedule ? resolve(io.cwd, flags.schedule) : undefined;
  const state = schedulePath ? lambdaFile.readLambdaState(schedulePath) : undefined;
  const lambdas = flags.lambdas ? lambdaFile.parseLambdas(flags.lambdas) : state?.lambdas;

  const loaded = loadCliConfig(io, flags);
  const judge = createJudgeClient({ config: loaded.config, ...(flags.judge ? { judge: flags.judge } : {}) });
  // The same judge at temperature 0 asked the same thing answers the same: asked once.
  const answer = judges.onceEach(judges.llmAnswerJudge(judge.client));
  const path = rewardsPath(dir, name);
  const earlier = flags.rescore ? new Map() : new Map(readRewardRecords(path).map((r) => [r.runId, r]));
  const records = await score.scoreRuns(runs, {
    reward: name,
    judges: {
      answer,
      // MindDR's three ORM judges: the judge model asked three times.
      orm: [answer, answer, answer],
      pipeline: judges.llmPipelineJudge(judge.client),
      race: judges.llmRaceScorer(judge.client),
      rate: judges.llmRubricRater(judge.client),
    },
    advantage: flags.advantage,
    dropUniformGroups: flags.dapo === true,
    concurrency,
    earlier,
    ...(lambdas ? { lambdas } : {}),
    onScored: (done, total) => {
      if (!flags.json && !io.isTty) io.err(`reward: ${done}/${total} runs scored\n`);
    },
  });
  writeFileSync(`${path}.tmp`, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  renameSync(`${path}.tmp`, path);
  // The batch's figures move the λ schedule, for the next scoring.
  const next =
    schedulePath && state
      ? lambdaFile.advanceLambdaState(
          schedulePath,
          state,
          searchBatchMetrics(records.map((r) => ({ ...r.details, components: r.components }) as never)),
        )
      : undefined;

  const groups = new Map<string, number[]>();
  for (const r of records) groups.set(r.groupId, [...(groups.get(r.groupId) ?? []), r.reward]);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const dropped = new Set(records.filter((r) => r.dropped).map((r) => r.groupId));
  const usage = judge.usage();
  const summary = {
    reward: name,
    runs: records.length,
    groups: groups.size,
    meanReward: mean(records.map((r) => r.reward)),
    droppedGroups: [...dropped],
    /** Runs whose reward was kept from an earlier scoring. */
    kept: records.filter((r) => earlier.get(r.runId)?.rewardName === name).length,
    ...(lambdas ? { lambdas } : {}),
    ...(next ? { schedule: { phase: next.phase, next: next.lambdas, batches: next.batches } } : {}),
    judge: judge.model,
    judgeCalls: usage.llmCalls,
    costUsd: usage.costUsd,
    out: path,
  };
  if (flags.json) io.out(`${terminalJson(summary)}\n`);
  else {
    const lines = [
      `${name}: ${records.length} runs in ${groups.size} groups, mean reward ${summary.meanReward.toFixed(4)}`,
      ...[...groups].map(
        ([id, rewards]) =>
          `  ${id}: ${rewards.map((r) => r.toFixed(3)).join(" ")} (mean ${mean(rewards).toFixed(3)})${dropped.has(id) ? " dropped: all equal" : ""}`,
      ),
      ...(next
        ? [
            `λ schedule: phase ${next.phase} after ${next.batches} batch(es); next scoring uses ${JSON.stringify(next.lambdas)}`,
          ]
        : []),
      `judge ${judge.model}: ${usage.llmCalls} calls, cost ${usage.costUsd === null ? "unknown" : `$${usage.costUsd.toFixed(4)}`}`,
      `rewards: ${path}`,
    ];
    io.out(`${lines.map(terminalLine).join("\n")}\n`);
  }
  return 0;
}

/** Registers `dossier train reward`. */
export function registerTrainReward(train: Command, io: CliIo): void {
  train
    .command("reward <dir>")
    .description("score a rollouts folder with one of the seeds' rewards, with each run's group advantage")
    .option(
      "--reward <name>",
      "smtl, warp, warp-atomic (atomic-skill samples), minddr-search, minddr-report or rubric (required)",
    )
    .option("--advantage <kind>", "group advantage: grpo or rloo", "grpo")
    .option("--dapo", "DAPO's dynamic-sampling filter: mark groups whose rewards are all equal as dropped")
    .option("--judge <provider:model>", "judge model (default: DOSSIER_MODEL_JUDGE, else DOSSIER_MODEL)")
    .option("--concurrency <n>", "runs scored at once (default 4)")
    .option("--rescore", "judge every run again (default: runs scored before keep their reward)")
    .option(
      "--lambdas <tool,format,prm>",
      "minddr-search: Eq. 9's λ_tool, λ_format, λ_PRM (λ_ORM is the rest)",
    )
    .option(
      "--schedule <file>",
      "minddr-search: the λ schedule's state (JSON; created at phase 0): scored with its λ, then advanced by this batch",
    )
    .option("--json", "print one JSON summary line")
    .action(async (dir: string, _opts: RewardFlags, cmd: Command) => {
      const code = await runTrainReward(io, dir, cmd.optsWithGlobals<RewardFlags>());
      if (code !== 0) throw new CliExit(code);
    });
}
