/**
 * `dossier eval process …`. (Filled in by the work that owns it.)
 */

import type { Command } from "commander";
import type { CliIo } from "../../io.ts";

/** Registers the `process` evaluation subcommand(s) under `dossier eval`. */
export function registerProcessEval(_evalCommand: Command, _io: CliIo): void {}
