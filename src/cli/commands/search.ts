/**
 * `dossier search "<query>"`: one web (or local) search. (Filled in by the tool-layer work.)
 */

import type { Command } from "commander";
import type { CliIo } from "../io.ts";

/** Registers `dossier search`. */
export function registerSearchCommand(_program: Command, _io: CliIo): void {}
