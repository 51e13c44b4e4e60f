/**
 * `dossier eval preference …`. (Filled in by the work that owns it.)
 */

import type { Command } from "commander";
import type { CliIo } from "../../io.ts";

/** Registers the `preference` evaluation subcommand(s) under `dossier eval`. */
export function registerPreferenceEval(_evalCommand: Command, _io: CliIo): void {}
