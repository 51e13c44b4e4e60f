/**
 * `dossier worker`: takes runs from the queue on Redis (`--queue`, else DOSSIER_REDIS_URL) and
 * executes them with this machine's configuration and the shared store (DOSSIER_DATABASE_URL),
 * `--concurrency` at once. Any number of workers, on any machine that reaches both services. A
 * run whose worker died is resumed from its journal by another. `--status` prints the queue
 * (jobs by state, workers connected) and exits. Calls to search and model providers hold slots
 * of a limiter on the same Redis, so all workers together keep each provider's limits. The
 * worker's runs are leased for `--lock-ms`: a worker that dies has its runs taken over within
 * `--lock-ms` + one heartbeat. A cancel recorded in the store stops a run before its next model
 * request. SIGINT or SIGTERM stops taking jobs and waits for the runs under way; a second SIGINT
 * leaves at once (those runs are then resumed elsewhere).
 */

import type { Command } from "commander";
import { DossierError } from "../../core/errors.ts";
import { terminalJson, terminalLine } from "../../core/terminal-text.ts";
import type { SweepNote } from "../../queue/sweeper.ts";
import { CliExit } from "../errors.ts";
import type { CliIo } from "../io.ts";
import type { GlobalFlags } from "../settings.ts";
import { commandEntry } from "./catalog.ts";
import { queueStatusText } from "./queue-status.ts";

/** Flags of `dossier worker`. */
export interface WorkerFlags extends GlobalFlags {
  queue?: string;
  concurrency?: string;
  lockMs?: string;
  staleMs?: string;
  sweepMs?: string;
  status?: boolean;
  json?: boolean;
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

/** The queue URL of a command: its `--queue` flag, else the configuration's `redisUrl`. */
export function queueUrlOf(flag: string | undefined, configured: string | undefined): string | undefined {
  return flag?.trim() || configured;
}

/** The line of a sweep that acted on a run. */
function sweptText(note: SweepNote): string {
  switch (note.action) {
    case "requeued":
      return `run ${note.runId}: queued but its job was lost; enqueued again (${note.jobId})`;
    case "taken-over":
      return `run ${note.runId}: its owner went silent and its job was lost; handed to a worker (${note.jobId})`;
    default:
      return `run ${note.runId}: failed: ${note.reason}`;
  }
}

/** Runs `dossier worker`; resolves to the exit code. */
export async function runWorker(io: CliIo, flags: WorkerFlags): Promise<number> {
  const concurrency = whole("--concurrency", flags.concurrency, 1, 256) ?? 1;
  const lockDurationMs = whole("--lock-ms", flags.lockMs, 1_000, 3_600_000);
  const staleAfterMs = whole("--stale-ms", flags.staleMs, 1_000, 3_600_000);
  const sweepMs = whole("--sweep-ms", flags.sweepMs, 0, 3_600_000);
  const [
    { createDossierForCli },
    { startRunWorker },
    { openRunQueue },
    { openRedisLimiter },
    { configuredLimits },
    { createCancelGate },
    { setRunLease, DEFAULT_LEASE_MS },
  ] = await Promise.all([
    import("../dossier-cli.ts"),
    import("../../queue/run-worker.ts"),
    import("../../queue/run-queue.ts"),
    import("../../queue/redis-limiter.ts"),
    import("../../queue/configured-limits.ts"),
    import("../../queue/cancel-gate.ts"),
    import("../../runtime/run-liveness.ts"),
  ]);
  // The runs this process starts or takes up are its own for --lock-ms after each heartbeat.
  setRunLease(lockDurationMs ?? DEFAULT_LEASE_MS);
  const cancelGate = createCancelGate();
  // The providers' limits are shared with every worker of the queue, on its Redis server.
  let limiter: import("../../queue/redis-limiter.ts").RedisLimiter | undefined;
  const dossier = createDossierForCli(io, flags, {
    limiter: (config) => {
      const queueUrl = queueUrlOf(flags.queue, config.redisUrl);
      limiter = queueUrl
        ? openRedisLimiter({ url: queueUrl, limitsOf: configuredLimits(config) })
        : undefined;
      // Each model request passes the cancel gate once it holds its slot.
      return limiter && cancelGate.wrap(limiter);
    },
  });
  const url = queueUrlOf(flags.queue, dossier.config.redisUrl);
  if (!url) {
    await dossier.close();
    throw new DossierError(
      "CONFIG_INVALID",
      "dossier worker needs a queue: --queue redis://host:port or DOSSIER_REDIS_URL",
    );
  }
  const queue = openRunQueue({ url });
  const closeAll = async () => {
    await dossier.close();
    await limiter?.close();
  };
  try {
    // Both services must answer before any job is taken (the queue's error names the queue).
    await Promise.all([queue.ready(), dossier.store.ready()])
      .then(() => limiter?.ready())
      .catch(async (error) => {
        await closeAll();
        throw error;
      });
    if (flags.status) {
      const status = await queue.status();
      io.out(flags.json ? `${terminalJson(status)}\n` : `${queueStatusText(queue.target.display, status)}\n`);
      return 0;
    }
  } finally {
    await queue.close();
    if (flags.status) await closeAll();
  }

  // A rollout of the rollout service runs in its policy's Dossier, on this one's store and limiter.
  const policies = (await import("../../train/service/policy-dossiers.ts")).policyDossiers({
    base: dossier,
    env: io.env,
    cwd: io.cwd,
    // Their model requests pass the cancel gate too.
    ...(limiter ? { limiter: cancelGate.wrap(limiter) } : {}),
  });
  const worker = startRunWorker({
    dossier,
    runnerFor: (runId) => policies.forRun(runId),
    url,
    concurrency,
    ...(lockDurationMs ? { lockDurationMs } : {}),
    ...(staleAfterMs ? { staleAfterMs } : {}),
    ...(sweepMs !== undefined ? { sweepMs } : {}),
    cancelGate,
    onNote: (note) => {
      if (flags.json) {
        io.out(`${terminalJson({ ...note, at: new Date().toISOString() })}\n`);
        return;
      }
      const line =
        note.type === "start"
          ? `run ${note.runId}: ${note.resumed ? "resumed from its journal" : "started"} (attempt ${note.attempt})`
          : note.type === "end"
            ? `run ${note.runId}: ${note.status} (${note.stopReason})`
            : note.type === "stalled"
              ? `run ${note.runId}: its worker stopped; handed to a worker again`
              : note.type === "swept"
                ? sweptText(note)
                : `error${note.runId ? ` in run ${note.runId}` : ""}: ${note.message}`;
      io.err(`dossier worker: ${terminalLine(line)}\n`);
    },
  });
  await worker.ready();
  io.err(
    `dossier worker ${worker.name}: taking runs from ${terminalLine(queue.target.display)} into ${terminalLine(dossier.store.location)}, ${concurrency} at once\n`,
  );
  const signal = await new Promise<"SIGINT" | "SIGTERM">((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  const onSecond = () => process.exit(130);
  process.once("SIGINT", onSecond);
  io.err(`dossier worker: stopping (${signal}); waiting for ${worker.running().length} runs under way\n`);
  try {
    await worker.close();
    await policies.close();
    await closeAll();
  } finally {
    process.off("SIGINT", onSecond);
  }
  return signal === "SIGINT" ? 130 : 143;
}

/** Registers `dossier worker`. */
export function registerWorkerCommand(program: Command, io: CliIo): void {
  program
    .command("worker")
    .description(commandEntry("worker").description)
    .option("--queue <url>", "the run queue, redis://host:port[?prefix=name] (default DOSSIER_REDIS_URL)")
    .option("--concurrency <n>", "runs at once in this process (default 1)")
    .option(
      "--lock-ms <n>",
      "the lease of this worker's runs and jobs: silent this long, its runs go to others within one heartbeat more (default 30000)",
    )
    .option(
      "--stale-ms <n>",
      "the lease of a run whose owner recorded none (started by an older version) (default 30000)",
    )
    .option(
      "--sweep-ms <n>",
      "how often to look for queued or running runs whose job the queue lost (default 5000; 0: never)",
    )
    .option("--status", "print the queue's jobs by state and the workers connected, and exit")
    .option("--json", "print JSON lines")
    .action(async (_opts: WorkerFlags, cmd: Command) => {
      const code = await runWorker(io, cmd.optsWithGlobals<WorkerFlags>());
      if (code !== 0) throw new CliExit(code);
    });
}
