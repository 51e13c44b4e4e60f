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
export function recordingIo(options: {
  cwd: string;
  env?: Record<string, string | undefined>;
  /** What standard input holds (default: no standard input). */
  stdin?: string;
}): RecordingIo {
  const { stdin } = options;
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
    ...(stdin === undefined ? {} : { readStdin: async () => stdin }),
  };
  return io;
}

/** What an in-process CLI run printed and returned. */
export interface CliOutcome {
  /** The exit code `runCli` resolved to. */
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `dossier <argv>` in-process through `runCli` with a recording CliIo: `env` is the whole
 * environment the command sees (nothing of this process's own), `cwd` its working directory.
 */
export async function runCliInProcess(
  argv: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined>; isTty?: boolean; stdin?: string },
): Promise<CliOutcome> {
  const { runCli } = await import("../src/cli/program.ts");
  const io = recordingIo({
    cwd: options.cwd,
    env: options.env ?? {},
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
  });
  if (options.isTty) io.isTty = true;
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}
