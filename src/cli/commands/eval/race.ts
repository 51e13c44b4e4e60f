/**
 * `dossier eval race …`. (Filled in by the work that owns it.)
 */

import type { Command } from "commander";
import type { CliIo } from "../../io.ts";

/** Registers the `race` evaluation subcommand(s) under `dossier eval`. */
export function registerRaceEval(_evalCommand: Command, _io: CliIo): void {}
