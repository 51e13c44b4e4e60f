/**
 * `dossier eval fact …`. (Filled in by the work that owns it.)
 */

import type { Command } from "commander";
import type { CliIo } from "../../io.ts";

/** Registers the `fact` evaluation subcommand(s) under `dossier eval`. */
export function registerFactEval(_evalCommand: Command, _io: CliIo): void {}
