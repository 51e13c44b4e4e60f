/**
 * How the CLI reports errors: one line naming the code and what to do, never a stack trace
 * unless `--debug` is given.
 */

import { CommanderError } from "commander";
import { DossierError, toDossierError } from "../core/errors.ts";
import { terminalJson, terminalLine, terminalText } from "../core/terminal-text.ts";

/** Exit code for configuration and usage errors. */
export const EXIT_USAGE = 2;
/** Exit code for any other failure. */
export const EXIT_FAILURE = 1;
/** Exit code of a run stopped by the user (128 + SIGINT). */
export const EXIT_CANCELLED = 130;

/** Thrown by a command that has already reported its outcome and only sets the exit code. */
export class CliExit extends Error {
  readonly exitCode: number;

  constructor(exitCode: number) {
    super(`exit ${exitCode}`);
    this.name = "CliExit";
    this.exitCode = exitCode;
  }
}

/** The exit code of an error. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CliExit) return error.exitCode;
  if (error instanceof DossierError) {
    if (error.code === "CANCELLED") return EXIT_CANCELLED;
    if (
      [
        "CONFIG_INVALID",
        "MODEL_SPEC_INVALID",
        "INPUT_INVALID",
        "MODEL_NOT_CONFIGURED",
        "PROVIDER_NOT_CONFIGURED",
        "DEPENDENCY_MISSING",
      ].includes(error.code)
    )
      return EXIT_USAGE;
  }
  return EXIT_FAILURE;
}

/** The text printed for an error: one line, or the full chain with `debug`. */
export function formatError(error: unknown, debug: boolean): string {
  const e = toDossierError(error);
  const line = `dossier: error [${e.code}]: ${terminalLine(e.message.replace(/\s*\n\s*/g, " "))}`;
  if (!debug) return `${line}\n`;
  const parts = [line, e.stack ?? ""];
  let cause = (e as Error).cause;
  while (cause) {
    parts.push(`caused by: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`);
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  if (Object.keys(e.details).length) parts.push(`details: ${terminalJson(e.details)}`);
  // Messages and stacks can carry untrusted text (a page, a model answer): no control sequence is printed.
  return `${terminalText(parts.join("\n"))}\n`;
}

/** True for Commander's own exits (help, version, usage errors already printed). */
export function isCommanderExit(error: unknown): error is CommanderError {
  return error instanceof CommanderError;
}
