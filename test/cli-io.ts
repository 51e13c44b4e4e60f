/**
 * A CliIo for running CLI commands in-process in tests: it records what the command writes.
 */

import type { CliIo } from "../src/cli/io.ts";

/** A CliIo whose output is collected in `stdout` and `stderr`. */
export interface RecordingIo extends CliIo {
  stdout: string;
  stderr: string;
}

/** Creates a recording CliIo for `cwd` and `env` (not a terminal). */
export function recordingIo(options: { cwd: string; env?: Record<string, string | undefined> }): RecordingIo {
  const io: RecordingIo = {
    env: options.env ?? {},
    cwd: options.cwd,
    isTty: false,
    stdout: "",
    stderr: "",
    out(text) {
      io.stdout += text;
    },
    err(text) {
      io.stderr += text;
    },
  };
  return io;
}
