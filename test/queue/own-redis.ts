/**
 * A redis-server that a test owns: started on a free port of the loopback, with nothing kept on
 * disk, so a test may stop it, start it again (empty, as a Redis without persistence comes back
 * after a restart) or FLUSHALL it without touching the shared server.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { createServer, Socket } from "node:net";

/** A test's own Redis server. */
export interface OwnRedis {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` with `?prefix=…` when given. */
  url(prefix?: string): string;
  /** Sends one command and resolves with the raw answer. */
  command(...args: string[]): Promise<string>;
  /** Stops the server (SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty). */
  start(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function send(port: number, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    socket.setTimeout(2_000, () => {
      socket.destroy();
      reject(new Error("timeout"));
    });
    socket.once("error", reject);
    socket.connect(port, "127.0.0.1", () =>
      socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`),
    );
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString());
    });
  });
}

/** Null when a `redis-server` can be started here (it is on the PATH), else why not. */
export function redisServerProblem(): Promise<string | null> {
  return new Promise((resolve) => {
    const probe = spawn("redis-server", ["--version"], { stdio: "ignore" });
    probe.once("error", () => resolve("redis-server is not installed (a test starts one of its own)"));
    probe.once("exit", (code) => resolve(code === 0 ? null : `redis-server --version exited with ${code}`));
  });
}

/** Starts a redis-server of the test's own; resolves once it answers PING. */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { stdio: "ignore" },
    );
    const end = Date.now() + 10_000;
    for (;;) {
      const answer = await send(port, ["PING"]).catch(() => "");
      if (answer.startsWith("+PONG")) return;
      if (Date.now() > end) throw new Error(`redis-server on ${port} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await start();
  return {
    port,
    url: (prefix) => `redis://127.0.0.1:${port}${prefix ? `?prefix=${prefix}` : ""}`,
    command: (...args) => send(port, args),
    start,
    async stop() {
      const running = child as ChildProcess | null;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once("exit", () => resolve());
        running.kill("SIGKILL");
      });
    },
  };
}
