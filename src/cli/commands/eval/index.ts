/**
 * `dossier eval …`: the evaluation toolkit. Each subcommand lives in its own file.
 */

import type { Command } from "commander";
import type { CliIo } from "../../io.ts";
import { commandEntry } from "../catalog.ts";
import { registerChecksEval } from "./checks.ts";
import { registerDeepsearchEval } from "./deepsearch.ts";
import { registerFactEval } from "./fact.ts";
import { registerPreferenceEval } from "./preference.ts";
import { registerProcessEval } from "./process.ts";
import { registerRaceEval } from "./race.ts";
import { registerRetrievalEval } from "./retrieval.ts";
import { registerRubricEval } from "./rubric.ts";

/** Registers `dossier eval` and its subcommands. */
export function registerEvalCommand(program: Command, io: CliIo): void {
  const evalCommand = program.command("eval").description(commandEntry("eval").description);
  registerRubricEval(evalCommand, io);
  registerRaceEval(evalCommand, io);
  registerFactEval(evalCommand, io);
  registerPreferenceEval(evalCommand, io);
  registerDeepsearchEval(evalCommand, io);
  registerProcessEval(evalCommand, io);
  registerChecksEval(evalCommand, io);
  registerRetrievalEval(evalCommand, io);
}
