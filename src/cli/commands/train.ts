/**
 * `dossier train …`: the learning loop. `rollouts` runs G recorded rollouts of every question
 * into a folder, `reward` scores them with one of the seeds' rewards (and the group
 * advantages), `export` writes them as a training file (sft, dpo, rl, verl). Each subcommand
 * loads its module when it runs.
 */

import type { Command } from "commander";
import type { CliIo } from "../io.ts";
import { commandEntry } from "./catalog.ts";
import { registerTrainExport } from "./train-export.ts";
import { registerTrainReward } from "./train-reward.ts";
import { registerTrainRollouts } from "./train-rollouts.ts";
import { registerTrainRubricReward } from "./train-rubric-reward.ts";
import { registerTrainServe } from "./train-serve.ts";

/** Registers `dossier train` and its subcommands. */
export function registerTrainCommand(program: Command, io: CliIo): void {
  const train = program.command("train").description(commandEntry("train").description);
  registerTrainRollouts(train, io);
  registerTrainReward(train, io);
  registerTrainExport(train, io);
  registerTrainRubricReward(train, io);
  registerTrainServe(train, io);
}
