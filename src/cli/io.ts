/**
 * What a CLI command talks to: streams, environment and working directory, injected so tests
 * can run commands in-process.
 */

/** The CLI's surroundings. */
export interface CliIo {
  env: Record<string, string | undefined>;
  cwd: string;
  /** Writes to standard output. */
  out(text: string): void;
  /** Writes to standard error. */
  err(text: string): void;
  /** True when standard output is a terminal (progress bars, colours). */
  isTty: boolean;
}

/** The process's own surroundings. */
export function processIo(): CliIo {
  return {
    env: process.env,
    cwd: process.cwd(),
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    isTty: Boolean(process.stdout.isTTY),
  };
}
