/**
 * `dossier train serve`: the rollout service (train/service/) over HTTP — a trainer posts
 * batches of question rows with its policy endpoint, group size, reward and policy version to
 * `POST /v1/rollouts`, follows them over SSE and reads their rewards, advantages and token
 * records. On 127.0.0.1:8788 unless `--host`/`--port` say otherwise, answering only to its own
 * address and the `--allowed-host` names, with `serve`'s token (kept under the data directory,
 * shown once) and access log. With a queue (`--queue` or DOSSIER_REDIS_URL) the rollouts are
 * enqueued for `dossier worker` processes on the shared store; otherwise they run here,
 * `--concurrency` at once. Ctrl-C or SIGTERM stops accepting, cancels the batches under way
 * (their runs are resumable) and exits 130 / 143.
 */

import type { Command } from "commander";
import { DossierError } from "../../core/errors.ts";
import { terminalLine } from "../../core/terminal-text.ts";
import { CliExit } from "../errors.ts";
import type { CliIo } from "../io.ts";
import type { GlobalFlags } from "../settings.ts";

/** Flags of `dossier train serve`. */
export interface TrainServeFlags extends GlobalFlags {
  host?: string;
  port?: string;
  concurrency?: string;
  rejectStale?: boolean;
  retries?: string;
  maxBody?: string;
  auth?: boolean;
  queue?: string;
  allowedHost?: string[];
  /** A target, or false for `--no-access-log`. */
  accessLog?: string | boolean;
}

function whole(flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < min || n > max)
    throw new DossierError(
      "INPUT_INVALID",
      `${flag} must be a whole number from ${min} to ${max}, got "${value}"`,
    );
  return n;
}

/** Runs `dossier train serve` until SIGINT or SIGTERM; resolves to the exit code. */
export async function runTrainServe(io: CliIo, flags: TrainServeFlags): Promise<number> {
  const port = whole("--port", flags.port, 0, 65535);
  const concurrency = whole("--concurrency", flags.concurrency, 1, 1024);
  const retries = whole("--retries", flags.retries, 0, 10);
  const maxBodyBytes = whole("--max-body", flags.maxBody, 1024, 256 * 1024 * 1024);
  const [{ createDossierForCli }, { parseAllowedHost }, { openAccessLog }, { createRolloutService }, listen] =
    await Promise.all([
      import("../dossier-cli.ts"),
      import("../../server/host-guard.ts"),
      import("../../server/access-log.ts"),
      import("../../train/service/rollout-service.ts"),
      import("../../train/service/listen.ts"),
    ]);
  const flagHosts = (flags.allowedHost ?? []).map(parseAllowedHost);
  const dossier = createDossierForCli(io, flags);
  const allowedHosts = flagHosts.length ? flagHosts : (dossier.config.allowedHosts ?? []);
  let accessLog: import("../../server/access-log.ts").AccessLogSink | null = null;
  let queue: import("../../queue/run-queue.ts").RunQueue | null = null;
  let server: Awaited<ReturnType<typeof listen.startRolloutServer>>;
  try {
    allowedHosts.forEach(parseAllowedHost);
    const target = flags.accessLog === false ? "off" : flags.accessLog === true ? "stderr" : flags.accessLog;
    accessLog = openAccessLog(target ?? dossier.config.accessLog ?? "stderr", (text) => io.err(text));
    const queueUrl = flags.queue?.trim() || dossier.config.redisUrl;
    if (queueUrl) {
      const { openRunQueue } = await import("../../queue/run-queue.ts");
      queue = openRunQueue({ url: queueUrl });
      await Promise.all([queue.ready(), dossier.store.ready()]);
    }
    const service = await createRolloutService({
      dossier,
      env: io.env,
      cwd: io.cwd,
      queue,
      queueOptions: { cwd: io.cwd },
      ...(concurrency ? { concurrency } : {}),
      ...(retries !== undefined ? { infraRetries: retries } : {}),
      ...(flags.rejectStale ? { rejectStale: true } : {}),
    });
    server = await listen.startRolloutServer({
      service,
      home: dossier.home,
      ...(flags.host ? { host: flags.host } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(maxBodyBytes ? { maxBodyBytes } : {}),
      ...(flags.auth === false ? { token: null } : {}),
      allowedHosts,
      accessLog,
    });
  } catch (error) {
    await queue?.close();
    await accessLog?.close();
    await dossier.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL")
      throw new DossierError(
        "INPUT_INVALID",
        `cannot listen on ${flags.host ?? "127.0.0.1"}:${port ?? listen.DEFAULT_ROLLOUT_PORT} (${code})`,
        { cause: error },
      );
    throw error;
  }
  io.out(`Dossier rollout service listening on ${server.url} (OpenAPI: ${server.url}/openapi.json)\n`);
  io.out(
    queue
      ? `Rollouts go to the queue at ${terminalLine(queue.target.display)} for dossier worker processes\n`
      : `Rollouts run in this process, ${concurrency ?? 8} at once\n`,
  );
  if (server.token === null) io.err("dossier: warning: authentication is off (--no-auth)\n");
  else if (server.tokenCreated) {
    io.out(`Token (shown once; kept in ${server.tokenPath}): ${server.token}\n`);
    io.out("Send it as: Authorization: Bearer <token>\n");
  }

  const signal = await new Promise<"SIGINT" | "SIGTERM">((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  const onSecond = () => process.exit(signal === "SIGINT" ? 130 : 143);
  process.once("SIGINT", onSecond);
  io.err(
    `\ndossier: shutting down (${signal}); batches under way are cancelled, their runs can be resumed\n`,
  );
  try {
    await server.close(`rollout service stopped (${signal})`);
    await accessLog?.close();
    await queue?.close();
    await dossier.close();
  } finally {
    process.off("SIGINT", onSecond);
  }
  return signal === "SIGINT" ? 130 : 143;
}

/** Registers `dossier train serve`. */
export function registerTrainServe(train: Command, io: CliIo): void {
  train
    .command("serve")
    .description(
      "the rollout service: POST /v1/rollouts runs G recorded rollouts of each row with a trainer's policy endpoint, scored, over SSE",
    )
    .option("--host <address>", "interface to bind (default 127.0.0.1; 0.0.0.0 exposes it to the network)")
    .option("--port <n>", "port (default 8788; 0 = any free port)")
    .option("--concurrency <n>", "rollouts under way at once, all batches together (default 8)")
    .option("--reject-stale", "refuse stale work for every request (a policyVersion older than the latest)")
    .option("--retries <n>", "takings-up of a rollout that failed outside the agent (default 2)")
    .option("--max-body <bytes>", "largest request body (default 16 MiB)")
    .option("--no-auth", "serve without the token (only on a trusted machine)")
    .option(
      "--allowed-host <name>",
      "a host name the server also answers to, name or name:port (repeatable; default DOSSIER_ALLOWED_HOSTS)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option("--access-log <target>", "one JSON line per request to stderr (default), a file, or off")
    .option("--no-access-log", "write no access log")
    .option(
      "--queue <url>",
      "enqueue the rollouts on Redis for dossier worker processes, redis://host:port (default DOSSIER_REDIS_URL)",
    )
    .action(async (_opts: TrainServeFlags, cmd: Command) => {
      const code = await runTrainServe(io, cmd.optsWithGlobals<TrainServeFlags>());
      throw new CliExit(code);
    });
}
