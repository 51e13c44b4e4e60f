/**
 * `dossier eval checks …`. (Filled in by the work that owns it.)
 */

import type { Command } from "commander";
import type { CliIo } from "../../io.ts";

/** Registers the `checks` evaluation subcommand(s) under `dossier eval`. */
export function registerChecksEval(_evalCommand: Command, _io: CliIo): void {}
