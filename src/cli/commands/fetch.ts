/**
 * `dossier fetch <url>`: read one page (optionally with respect to a goal). (Filled in by the
 * tool-layer work.)
 */

import type { Command } from "commander";
import type { CliIo } from "../io.ts";

/** Registers `dossier fetch`. */
export function registerFetchCommand(_program: Command, _io: CliIo): void {}
