/**
 * `dossier eval rubric …`. (Filled in by the work that owns it.)
 */

import type { Command } from "commander";
import type { CliIo } from "../../io.ts";

/** Registers the `rubric` evaluation subcommand(s) under `dossier eval`. */
export function registerRubricEval(_evalCommand: Command, _io: CliIo): void {}
