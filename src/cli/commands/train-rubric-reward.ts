/**
 * `dossier train rubric-reward <preferences.jsonl> <completions.jsonl>`: scores rubrics a
 * rubric generator wrote with the rubric-generator reward (rubrics paper §3.3, Eq. 1–3). The
 * preference file holds `{id, query, accepted, rejected}` rows; the completions file one line per
 * generated rubric, `{id, completion}` (`id` the row it was written for; several per row make a
 * group). The judge model rates each rubric item on both reports (R_pref) and rates the rubric
 * itself (R_llm, 0–4); a completion that is not a rubric gets R_fmt = −1 with no judge call.
 * Writes one reward record per completion, with its advantage among its row's completions.
 * The files, the flags and the row ids are checked before any judge call.
 */

import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { DossierError } from "../../core/errors.ts";
import { terminalJson, terminalLine } from "../../core/terminal-text.ts";
import { CliExit } from "../errors.ts";
import type { CliIo } from "../io.ts";
import { type GlobalFlags, loadCliConfig } from "../settings.ts";

/** Flags of `dossier train rubric-reward`. */
export interface RubricRewardFlags extends GlobalFlags {
  out?: string;
  advantage: string;
  lambdas?: string;
  judge?: string;
  concurrency?: string;
  json?: boolean;
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new DossierError(
      "INPUT_INVALID",
      `cannot read the ${what} ${path} (${(error as NodeJS.ErrnoException).code})`,
    );
  }
}

/** `pref,llm` as two finite numbers. */
function parseLambdas(text: string): { pref: number; llm: number } {
  const parts = text.split(",").map((p) => Number(p.trim()));
  if (parts.length !== 2 || parts.some((p) => !Number.isFinite(p)))
    throw new DossierError("INPUT_INVALID", `--lambdas takes λ_pref,λ_llm (two numbers), got "${text}"`);
  return { pref: parts[0]!, llm: parts[1]! };
}

/** Runs `dossier train rubric-reward`. Resolves to the exit code. */
export async function runTrainRubricReward(
  io: CliIo,
  preferences: string,
  completionsFile: string,
  flags: RubricRewardFlags,
): Promise<number> {
  const [{ parseJsonl }, { preferenceRowSchema }, score, judges, quality, { createJudgeClient }] =
    await Promise.all([
      import("../../eval/race/jsonl.ts"),
      import("../../train/preference-row.ts"),
      import("../../train/score/score-rubrics.ts"),
      import("../../train/judges/llm-judges.ts"),
      import("../../train/judges/rubric-quality.ts"),
      import("../../eval/rubric/judge-client.ts"),
    ]);
  if (flags.advantage !== "grpo" && flags.advantage !== "rloo")
    throw new DossierError("INPUT_INVALID", `--advantage must be grpo or rloo, got "${flags.advantage}"`);
  const concurrency = flags.concurrency === undefined ? 4 : Number(flags.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new DossierError(
      "INPUT_INVALID",
      `--concurrency must be a positive integer, got "${flags.concurrency}"`,
    );
  const lambdas = flags.lambdas ? parseLambdas(flags.lambdas) : undefined;
  const prefPath = resolve(io.cwd, preferences);
  const rows = parseJsonl(readText(prefPath, "preference file"), preferenceRowSchema, preferences);
  const completionsPath = resolve(io.cwd, completionsFile);
  const completions = parseJsonl(
    readText(completionsPath, "completions file"),
    score.rubricCompletionSchema,
    completionsFile,
  );
  if (!completions.length) throw new DossierError("INPUT_INVALID", `${completionsFile} holds no completion`);
  const out = resolve(io.cwd, flags.out ?? "rewards-rubric-generator.jsonl");

  const loaded = loadCliConfig(io, flags);
  const judge = createJudgeClient({ config: loaded.config, ...(flags.judge ? { judge: flags.judge } : {}) });
  const records = await score.scoreRubricCompletions(
    rows,
    completions,
    { rate: judges.llmRubricRater(judge.client), quality: quality.llmRubricQualityJudge(judge.client) },
    {
      advantage: flags.advantage,
      concurrency,
      ...(lambdas ? { lambdas } : {}),
      onScored: (done, total) => {
        if (!flags.json && !io.isTty) io.err(`rubric-reward: ${done}/${total} completions scored\n`);
      },
    },
  );
  writeFileSync(`${out}.tmp`, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  renameSync(`${out}.tmp`, out);

  const usage = judge.usage();
  const mean = records.reduce((a, r) => a + r.reward, 0) / records.length;
  const summary = {
    reward: "rubric-generator",
    completions: records.length,
    rows: new Set(records.map((r) => r.id)).size,
    malformed: records.filter((r) => r.components.fmt === -1).length,
    meanReward: mean,
    judge: judge.model,
    judgeCalls: usage.llmCalls,
    costUsd: usage.costUsd,
    out,
  };
  if (flags.json) io.out(`${terminalJson(summary)}\n`);
  else
    io.out(
      `${[
        `rubric-generator: ${summary.completions} completions for ${summary.rows} rows, ${summary.malformed} not a rubric (R_fmt −1), mean reward ${mean.toFixed(4)}`,
        `judge ${judge.model}: ${usage.llmCalls} calls, cost ${usage.costUsd === null ? "unknown" : `$${usage.costUsd.toFixed(4)}`}`,
        `rewards: ${out}`,
      ]
        .map(terminalLine)
        .join("\n")}\n`,
    );
  return 0;
}

/** Registers `dossier train rubric-reward`. */
export function registerTrainRubricReward(train: Command, io: CliIo): void {
  train
    .command("rubric-reward <preferences> <completions>")
    .description(
      "score generated rubrics with the rubric-generator reward (R_pref + R_llm + R_fmt) and their group advantages",
    )
    .option("--out <file>", "the rewards file (default rewards-rubric-generator.jsonl)")
    .option("--advantage <kind>", "group advantage over a row's completions: grpo or rloo", "grpo")
    .option("--lambdas <pref,llm>", "Eq. 1's λ_pref and λ_llm (default 1,1)")
    .option("--judge <provider:model>", "judge model (default: DOSSIER_MODEL_JUDGE, else DOSSIER_MODEL)")
    .option("--concurrency <n>", "completions scored at once (default 4)")
    .option("--json", "print one JSON summary line")
    .action(async (preferences: string, completions: string, _opts: RubricRewardFlags, cmd: Command) => {
      const code = await runTrainRubricReward(
        io,
        preferences,
        completions,
        cmd.optsWithGlobals<RubricRewardFlags>(),
      );
      if (code !== 0) throw new CliExit(code);
    });
}
