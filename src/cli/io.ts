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
    out: pipeWriter(process.stdout),
    err: pipeWriter(process.stderr),
    isTty: Boolean(process.stdout.isTTY),
  };
}

/**
 * Writes to `stream` until its reader goes away: a closed pipe (`dossier runs list | head`)
 * raises EPIPE, after which output to it is dropped quietly — no stack trace — and the command
 * ends with its own exit code. Any other stream error stays an error.
 */
export function pipeWriter(stream: NodeJS.WritableStream & { destroyed?: boolean }): (text: string) => void {
  let gone = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") {
      gone = true;
      return;
    }
    throw error;
  });
  return (text) => {
    if (gone || stream.destroyed) return;
    stream.write(text);
  };
}
