/**
 * `dossier serve`: the HTTP API (runs with SSE event streams, report downloads, ask, search,
 * fetch, MCP at /mcp, OpenAPI at /openapi.json) on 127.0.0.1 unless `--host` says otherwise,
 * answering only to its own address and the `--allowed-host` names (others get 403), with an
 * access log of one JSON line per request (stderr by default, `--access-log <file>` or `off`).
 * A token is generated on the first start, kept under the data directory and shown once.
 * Ctrl-C or SIGTERM stops accepting, cancels runs under way (resumable) and exits 130 / 143.
 */

import type { Command } from "commander";
import { DossierError } from "../../core/errors.ts";
import { CliExit } from "../errors.ts";
import type { CliIo } from "../io.ts";
import type { GlobalFlags } from "../settings.ts";
import { commandEntry } from "./catalog.ts";

/** Flags of `dossier serve`. */
export interface ServeFlags extends GlobalFlags {
  host?: string;
  port?: string;
  maxRuns?: string;
  maxBody?: string;
  auth?: boolean;
  mcp?: boolean;
  queue?: string;
  allowedHost?: string[];
  /** A target, or false for `--no-access-log`. */
  accessLog?: string | boolean;
}

function whole(flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < min || n > max) {
    throw new DossierError(
      "INPUT_INVALID",
      `${flag} must be a whole number from ${min} to ${max}, got "${value}"`,
    );
  }
  return n;
}

/** Runs `dossier serve` until SIGINT or SIGTERM; resolves to the exit code. */
export async function runServe(io: CliIo, flags: ServeFlags): Promise<number> {
  const port = whole("--port", flags.port, 0, 65535);
  const maxRuns = whole("--max-runs", flags.maxRuns, 1, 64);
  const maxBodyBytes = whole("--max-body", flags.maxBody, 1024, 64 * 1024 * 1024);
  const [{ createDossierForCli }, { startServer }, { signInLink }, { parseAllowedHost }, { openAccessLog }] =
    await Promise.all([
      import("../dossier-cli.ts"),
      import("../../server/listen.ts"),
      import("../../server/web.ts"),
      import("../../server/host-guard.ts"),
      import("../../server/access-log.ts"),
    ]);
  const flagHosts = (flags.allowedHost ?? []).map(parseAllowedHost);
  const dossier = createDossierForCli(io, flags);
  // Flags replace the configured names (DOSSIER_ALLOWED_HOSTS, allowedHosts), as for any setting.
  const allowedHosts = flagHosts.length ? flagHosts : (dossier.config.allowedHosts ?? []);
  let accessLog: import("../../server/access-log.ts").AccessLogSink | null;
  try {
    allowedHosts.forEach(parseAllowedHost);
    const target = flags.accessLog === false ? "off" : flags.accessLog === true ? "stderr" : flags.accessLog;
    accessLog = openAccessLog(target ?? dossier.config.accessLog ?? "stderr", (text) => io.err(text));
  } catch (error) {
    await dossier.close();
    throw error;
  }
  // With a queue (--queue or DOSSIER_REDIS_URL) runs are enqueued for `dossier worker`s.
  const queueUrl = flags.queue?.trim() || dossier.config.redisUrl;
  let queue: import("../../queue/run-queue.ts").RunQueue | null = null;
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    if (queueUrl) {
      const { openRunQueue } = await import("../../queue/run-queue.ts");
      queue = openRunQueue({ url: queueUrl });
      await Promise.all([queue.ready(), dossier.store.ready()]);
    }
    const queued = queue
      ? (await import("../../queue/queued-research.ts")).queuedResearch(dossier, queue)
      : null;
    server = await startServer({
      ...(queued ? { queued } : {}),
      dossier,
      env: io.env,
      ...(flags.host ? { host: flags.host } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(maxRuns ? { maxRuns } : {}),
      ...(maxBodyBytes ? { maxBodyBytes } : {}),
      ...(flags.auth === false ? { token: null } : {}),
      ...(flags.mcp === false ? { mcp: false } : {}),
      allowedHosts,
      accessLog,
    });
  } catch (error) {
    await queue?.close();
    await accessLog?.close();
    await dossier.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL") {
      throw new DossierError(
        "INPUT_INVALID",
        `cannot listen on ${flags.host ?? "127.0.0.1"}:${port ?? 8787} (${code})`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
  io.out(
    `Dossier API listening on ${server.url} (OpenAPI: ${server.url}/openapi.json${flags.mcp === false ? "" : `, MCP: ${server.url}/mcp`})\n`,
  );
  if (queue) io.out(`Runs go to the queue at ${queue.target.display} for dossier worker processes\n`);
  if (server.token === null) io.err("dossier: warning: authentication is off (--no-auth)\n");
  else if (server.tokenCreated) {
    io.out(`Token (shown once; kept in ${server.tokenPath}): ${server.token}\n`);
    io.out("Send it as: Authorization: Bearer <token>\n");
  }
  const link = server.token === null ? null : signInLink(server.app.app, server.url);
  if (link) io.out(`Web UI: ${server.url}/ (one-time sign-in link, valid 15 minutes: ${link})\n`);
  else if (server.token === null) io.out(`Web UI: ${server.url}/\n`);

  const signal = await new Promise<"SIGINT" | "SIGTERM">((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  const onSecond = () => process.exit(signal === "SIGINT" ? 130 : 143);
  process.once("SIGINT", onSecond);
  io.err(`\ndossier: shutting down (${signal}); runs under way are cancelled and can be resumed\n`);
  try {
    await server.close(`server stopped (${signal})`);
    await accessLog?.close();
    await queue?.close();
    await dossier.close();
  } finally {
    process.off("SIGINT", onSecond);
  }
  return signal === "SIGINT" ? 130 : 143;
}

/** Registers `dossier serve`. */
export function registerServeCommand(program: Command, io: CliIo): void {
  program
    .command("serve")
    .description(commandEntry("serve").description)
    .option("--host <address>", "interface to bind (default 127.0.0.1; 0.0.0.0 exposes it to the network)")
    .option("--port <n>", "port (default 8787; 0 = any free port)")
    .option("--max-runs <n>", "runs at once; more are refused with 429 (default 2)")
    .option("--max-body <bytes>", "largest request body (default 262144)")
    .option("--no-auth", "serve without the token (only on a trusted machine)")
    .option("--no-mcp", "do not serve MCP at /mcp")
    .option(
      "--allowed-host <name>",
      "a host name the server also answers to, name or name:port (repeatable; default DOSSIER_ALLOWED_HOSTS); other Host and Origin headers get 403",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      "--access-log <target>",
      "one JSON line per request to stderr (default), a file, or off (default DOSSIER_ACCESS_LOG)",
    )
    .option("--no-access-log", "write no access log")
    .option(
      "--queue <url>",
      "enqueue runs on Redis for dossier worker processes instead of running them here, redis://host:port (default DOSSIER_REDIS_URL)",
    )
    .action(async (_opts: ServeFlags, cmd: Command) => {
      const code = await runServe(io, cmd.optsWithGlobals<ServeFlags>());
      throw new CliExit(code);
    });
}
