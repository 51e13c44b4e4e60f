/**
 * `dossier eval retrieval …`. (Filled in by the work that owns it.)
 */

import type { Command } from "commander";
import type { CliIo } from "../../io.ts";

/** Registers the `retrieval` evaluation subcommand(s) under `dossier eval`. */
export function registerRetrievalEval(_evalCommand: Command, _io: CliIo): void {}
