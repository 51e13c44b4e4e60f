/**
 * `dossier eval deepsearch …`. (Filled in by the work that owns it.)
 */

import type { Command } from "commander";
import type { CliIo } from "../../io.ts";

/** Registers the `deepsearch` evaluation subcommand(s) under `dossier eval`. */
export function registerDeepsearchEval(_evalCommand: Command, _io: CliIo): void {}
