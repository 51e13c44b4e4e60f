/**
 * `dossier index <dir>`: ingest a folder of documents into a local corpus. (Filled in by the
 * corpus work.)
 */

import type { Command } from "commander";
import type { CliIo } from "../io.ts";

/** Registers `dossier index`. */
export function registerIndexCommand(_program: Command, _io: CliIo): void {}
