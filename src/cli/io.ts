/**
 * What a CLI command talks to: streams, environment and working directory, injected so tests
 * can run commands in-process.
 */

import { DossierError } from "../core/errors.ts";

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
  /**
   * Reads standard input to its end as UTF-8 (`dossier research -`); INPUT_INVALID past
   * `maxBytes`. Absent where there is no standard input.
   */
  readStdin?(maxBytes: number): Promise<string>;
}

/** The process's own surroundings. */
export function processIo(): CliIo {
  return {
    env: process.env,
    cwd: process.cwd(),
    out: pipeWriter(process.stdout),
    err: pipeWriter(process.stderr),
    isTty: Boolean(process.stdout.isTTY),
    readStdin: (maxBytes) => readAll(process.stdin, maxBytes),
  };
}

/** Reads a stream to its end as UTF-8, refusing more than `maxBytes`. */
export async function readAll(stream: AsyncIterable<Buffer | string>, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > maxBytes) {
      throw new DossierError("INPUT_INVALID", `standard input holds more than ${maxBytes} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
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
