/**
 * `dossier` commands in processes of their own, for the fault tests: a worker or a batch started
 * with the CLI's source on this Node, its output kept (a worker's `--json` notes parsed as they
 * come), and a way to signal it and wait for its end. Every process is killed when the test
 * ends if it is still running.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

/** A `dossier` process under test. */
export interface DossierProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** What it wrote so far. */
  stdout(): string;
  stderr(): string;
  /** Its `--json` lines parsed (lines that are not JSON are skipped), each with when it was read. */
  notes(): Array<Record<string, unknown> & { readAt: number }>;
  /** Resolves with its exit code (or signal name) once it has ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` (default SIGTERM) and waits for the end (SIGKILL after `graceMs`, default 20 s). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

/** Starts `dossier <argv>` in `cwd` with exactly `env`. */
export function startDossier(
  argv: readonly string[],
  options: { cwd: string; env: Record<string, string> },
  cleanups: Array<() => Promise<unknown> | unknown>,
): DossierProcess {
  const child = spawn(process.execPath, [CLI, ...argv], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  let partial = "";
  const notes: Array<Record<string, unknown> & { readAt: number }> = [];
  child.stdout!.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    out += text;
    partial += text;
    const lines = partial.split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      try {
        notes.push({ ...(JSON.parse(line) as Record<string, unknown>), readAt: Date.now() });
      } catch {
        // not a JSON line
      }
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async (signal: NodeJS.Signals = "SIGTERM", graceMs = 20_000) => {
    if (ended()) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  };
  cleanups.push(() => stop("SIGKILL"));
  return {
    child,
    pid: child.pid!,
    stdout: () => out,
    stderr: () => err,
    notes: () => notes,
    exited,
    stop,
  };
}

/** Resolves once `check()` gives a value other than undefined/false (every 50 ms, at most `ms`). */
export async function until<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  ms: number,
  what: string,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
