/**
 * `dossier research` in a pipeline: `-` as the question reads it from standard input,
 * `--events ndjson` streams every event as one JSON line on standard output (the `--json`
 * summary last), `--out -` prints the report itself on standard output, and `--quiet` keeps
 * progress and notices off standard error.
 *
 * Event lines hold untrusted text (the question, pages, model output): they are written with
 * {@link terminalJson}, so no control character reaches a terminal unescaped.
 */

import { readFileSync } from "node:fs";
import { DossierError } from "../../core/errors.ts";
import type { DossierEvent } from "../../core/events.ts";
import { terminalJson, terminalText } from "../../core/terminal-text.ts";
import type { ResearchResult } from "../../runtime/research-handle.ts";
import type { CliIo } from "../io.ts";

/** The report formats `--out -` can print (text formats). */
export const STDOUT_FORMATS = ["md", "html", "json"] as const;

/** Flags of `dossier research` that concern standard input and output. */
export interface StdioFlags {
  out?: string;
  format?: string;
  json?: boolean;
  events?: string;
  quiet?: boolean;
}

/** The longest question read from standard input (1 MiB). */
const MAX_STDIN_BYTES = 1 << 20;

/**
 * The question of a run: `-` reads it from standard input (trimmed); INPUT_INVALID when it is
 * empty or too long.
 */
export async function readQuestion(io: CliIo, question: string): Promise<string> {
  if (question !== "-") return question;
  if (!io.readStdin)
    throw new DossierError(
      "INPUT_INVALID",
      'the question "-" reads standard input, which this command has none of',
    );
  const text = (await io.readStdin(MAX_STDIN_BYTES)).trim();
  if (!text) throw new DossierError("INPUT_INVALID", "the question read from standard input is empty");
  return text;
}

/**
 * Checks the flags that share standard output before anything runs: `--events` takes `ndjson`;
 * `--out -` prints one text format and cannot share standard output with `--json` or
 * `--events ndjson`.
 */
export function checkStdioFlags(flags: StdioFlags): void {
  if (flags.events !== undefined && flags.events !== "ndjson") {
    throw new DossierError("INPUT_INVALID", `--events takes ndjson, got "${flags.events}"`);
  }
  if (flags.out !== "-") return;
  if (flags.json || flags.events) {
    throw new DossierError(
      "INPUT_INVALID",
      `--out - prints the report on standard output, which ${flags.json ? "--json" : "--events ndjson"} uses too: write the report to a file instead`,
    );
  }
  const formats = (flags.format ?? "md")
    .split(",")
    .map((f) => f.trim().toLowerCase())
    .filter(Boolean);
  if (formats.length !== 1 || !(STDOUT_FORMATS as readonly string[]).includes(formats[0]!)) {
    throw new DossierError(
      "INPUT_INVALID",
      `--out - prints one report format, ${STDOUT_FORMATS.join(", ")} (got --format ${flags.format ?? "md"})`,
    );
  }
}

/** Writes each event as one JSON line on standard output. */
export function ndjsonWriter(io: CliIo): (event: DossierEvent) => void {
  return (event) => io.out(`${terminalJson(event)}\n`);
}

/** An io whose standard output goes to standard error (the run summary next to `--out -`). */
export function summaryToStderr(io: CliIo, quiet: boolean): CliIo {
  return { ...io, out: quiet ? () => {} : (text) => io.err(text) };
}

/**
 * Prints the report file of a finished run on standard output as written (the run wrote exactly
 * one format); on a terminal, control characters are shown escaped. Nothing when the run
 * produced no report.
 */
export function printReport(io: CliIo, result: ResearchResult): void {
  const path = result.paths[0];
  if (!result.report || !path) return;
  const text = readFileSync(path, "utf8");
  io.out(io.isTty ? terminalText(text) : text);
}
