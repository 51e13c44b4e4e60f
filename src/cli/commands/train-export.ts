/**
 * `dossier train export <dir> --format sft|dpo|rl|verl|tokens --out FILE`: a rollouts folder as
 * a training file — chat conversations for SFT (TRL, OpenAI fine-tuning), preference pairs for
 * DPO, scored samples with their group advantage for RL, the questions as verl's Parquet
 * dataset, or token ids with masks and log-probs for on-policy RL (see
 * train/export/export-rollouts.ts). `dpo` and `rl` read the folder's rewards; `tokens` uses them
 * when there are some, and a checkpoint's tokenizer folder (`--tokenizer`) for calls whose
 * server returned no ids.
 */

import { resolve } from "node:path";
import type { Command } from "commander";
import { DossierError } from "../../core/errors.ts";
import { terminalJson, terminalLine } from "../../core/terminal-text.ts";
import { ROLES, type Role } from "../../llm/model-spec.ts";
import { CliExit } from "../errors.ts";
import type { CliIo } from "../io.ts";
import type { GlobalFlags } from "../settings.ts";

/** Flags of `dossier train export`. */
export interface ExportFlags extends GlobalFlags {
  format?: string;
  out?: string;
  reward?: string;
  unit?: string;
  roles?: string;
  topK?: string;
  minReward?: string;
  margin?: string;
  advantage?: string;
  dapo?: boolean;
  json?: boolean;
  tokenizer?: string;
  retokenize?: boolean;
  policyVersion?: string;
  /** False (`--no-prune`): forced-expansion warp runs exported as recorded, not pruned (sft, rl, tokens). */
  prune?: boolean;
}

function number(flag: string, value: string | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || (integer && (!Number.isInteger(n) || n < 1)))
    throw new DossierError(
      "INPUT_INVALID",
      `${flag} must be ${integer ? "a positive integer" : "a number"}, got "${value}"`,
    );
  return n;
}

/** Runs `dossier train export`. Resolves to the exit code. */
export async function runTrainExport(io: CliIo, folder: string, flags: ExportFlags): Promise<number> {
  const [{ exportFormat, exportRollouts }, { writeExportFile }] = await Promise.all([
    import("../../train/export/export-rollouts.ts"),
    import("../../train/export/write.ts"),
  ]);
  if (!flags.format)
    throw new DossierError("INPUT_INVALID", "--format is required: sft, dpo, rl, verl or tokens");
  const format = exportFormat(flags.format);
  if (!flags.out) throw new DossierError("INPUT_INVALID", "--out <file> is required");
  if (flags.unit !== undefined && !["call", "trajectory", "run"].includes(flags.unit))
    throw new DossierError("INPUT_INVALID", `--unit must be call, trajectory or run, got "${flags.unit}"`);
  if (flags.advantage !== undefined && flags.advantage !== "grpo" && flags.advantage !== "rloo")
    throw new DossierError("INPUT_INVALID", `--advantage must be grpo or rloo, got "${flags.advantage}"`);
  const roles = flags.roles?.split(",").map((r) => r.trim());
  for (const role of roles ?? [])
    if (!(ROLES as readonly string[]).includes(role))
      throw new DossierError("INPUT_INVALID", `--roles: unknown role "${role}" (roles: ${ROLES.join(", ")})`);
  const topK = number("--top-k", flags.topK, true);
  const minReward = number("--min-reward", flags.minReward, false);
  const margin = number("--margin", flags.margin, false);
  const out = resolve(io.cwd, flags.out);
  if (flags.prune === false && format !== "sft" && format !== "rl" && format !== "tokens")
    throw new DossierError("INPUT_INVALID", "--no-prune applies to the sft, rl and tokens exports");
  if (format !== "tokens" && (flags.tokenizer || flags.retokenize || flags.policyVersion !== undefined))
    throw new DossierError(
      "INPUT_INVALID",
      "--tokenizer, --retokenize and --policy-version apply to --format tokens",
    );
  if (flags.retokenize && !flags.tokenizer)
    throw new DossierError(
      "INPUT_INVALID",
      "--retokenize needs --tokenizer <dir> (the checkpoint's tokenizer files)",
    );
  const tokenizer = flags.tokenizer
    ? await (await import("../../train/tokens/checkpoint-tokenizer.ts")).loadCheckpointTokenizer(
        resolve(io.cwd, flags.tokenizer),
      )
    : undefined;
  const result = exportRollouts(resolve(io.cwd, folder), {
    format,
    ...(flags.reward ? { reward: flags.reward } : {}),
    ...(flags.unit ? { unit: flags.unit as "call" } : {}),
    ...(roles ? { roles: roles as Role[] } : {}),
    ...(topK === undefined ? {} : { topK }),
    ...(minReward === undefined ? {} : { minReward }),
    ...(margin === undefined ? {} : { margin }),
    ...(flags.advantage ? { advantage: flags.advantage as "grpo" } : {}),
    dropUniformGroups: flags.dapo === true,
    ...(flags.prune === false ? { warpPruning: false } : {}),
    ...(format === "tokens"
      ? {
          tokens: {
            ...(tokenizer ? { tokenizer } : {}),
            ...(flags.retokenize ? { retokenize: "always" as const } : {}),
            ...(flags.policyVersion !== undefined ? { policyVersion: flags.policyVersion } : {}),
            ...(out.toLowerCase().endsWith(".parquet") ? { parquet: true } : {}),
          },
        }
      : {}),
  });
  writeExportFile(out, result.content);
  const summary = {
    format,
    out,
    records: result.records,
    skipped: result.skipped.length,
    reward: result.reward,
  };
  if (flags.json) io.out(`${terminalJson(summary)}\n`);
  else
    io.out(
      `${terminalLine(`${format}: ${result.records} records → ${out}${result.reward ? ` (reward ${result.reward})` : ""}${result.skipped.length ? `; ${result.skipped.length} skipped, e.g. ${result.skipped[0]!.runId}: ${result.skipped[0]!.reason}` : ""}`)}\n`,
    );
  return result.records > 0 ? 0 : 1;
}

/** Registers `dossier train export`. */
export function registerTrainExport(train: Command, io: CliIo): void {
  train
    .command("export <dir>")
    .description("write a rollouts folder as a training file: sft, dpo, rl, tokens (JSONL) or verl (Parquet)")
    .option("--format <format>", "sft, dpo, rl, verl or tokens (required)")
    .option(
      "--out <file>",
      "the file to write (required); tokens: Parquet when it ends in .parquet, else JSONL",
    )
    .option("--reward <name>", "the rewards to use (default: the folder's only rewards file)")
    .option("--unit <unit>", "sft: call (default) or trajectory; rl: call (default), trajectory or run")
    .option("--roles <list>", "sft, rl and tokens: only calls of these model roles (comma list)")
    .option("--top-k <n>", "sft: each question's n best runs by reward (Self-SFT)")
    .option("--min-reward <x>", "sft: only runs with at least this reward")
    .option("--margin <x>", "dpo: the smallest reward gap of a pair (default 0)")
    .option("--advantage <kind>", "rl: grpo (default) or rloo")
    .option("--dapo", "rl: skip groups whose rewards are all equal")
    .option(
      "--no-prune",
      "sft, rl and tokens: export forced-expansion warp runs as recorded (default: pruned at the best draft, WARP's relabelled TERMINATE)",
    )
    .option(
      "--tokenizer <dir>",
      "tokens: a checkpoint's tokenizer.json and tokenizer_config.json (its chat template), to re-tokenize calls the server returned no ids for",
    )
    .option(
      "--retokenize",
      "tokens: re-tokenize every call with --tokenizer, not only those without server ids",
    )
    .option("--policy-version <v>", "tokens: the policy's version, written on every record")
    .option("--json", "print one JSON summary line")
    .action(async (dir: string, _opts: ExportFlags, cmd: Command) => {
      const code = await runTrainExport(io, dir, cmd.optsWithGlobals<ExportFlags>());
      if (code !== 0) throw new CliExit(code);
    });
}
