/**
 * The world of the fault tests: the loopback research world (a scripted model server that
 * records every request, fake search and web), a redis-server of the test's own (stopped,
 * restarted and flushed at will), a PostgreSQL schema of its own whose connections from the
 * `dossier` processes carry an `application_name` of their own (so that terminating them with
 * `pg_terminate_backend` touches nothing else), and `dossier worker` / `dossier batch`
 * processes pointed at all of it. Everything is removed when the test ends.
 */

import { randomBytes } from "node:crypto";
import { Queue } from "bullmq";
import pg from "pg";
import { openRunQueue, RUN_QUEUE, type RunQueue } from "../../src/queue/run-queue.ts";
import { createDossier, type Dossier } from "../../src/runtime/dossier.ts";
import { type OwnRedis, startOwnRedis } from "../queue/own-redis.ts";
import { worldEnv } from "../research/killed-run.ts";
import { type ResearchWorld, startResearchWorld, type WorldOptions } from "../research/world.ts";
import { TEST_DATABASE_URL } from "../services.ts";
import { type DossierProcess, startDossier } from "./dossier-process.ts";

/** A running fault world. */
export interface FaultWorld {
  world: ResearchWorld;
  redis: OwnRedis;
  /** The store's schema, and the `application_name` of the `dossier` processes' connections. */
  schema: string;
  applicationName: string;
  /** The store and queue URLs the processes use. */
  databaseUrl: string;
  queueUrl: string;
  /** This test's own view of the store (its connections are not terminated) and of the queue. */
  dossier: Dossier;
  queue: RunQueue;
  /** The environment of a `dossier` process of this world. */
  env: Record<string, string>;
  /**
   * Starts `dossier worker --queue <url> --json [...args]`; `apiKey` is the model key it sends
   * (the model server's requests tell the workers apart by it).
   */
  startWorker(args?: readonly string[], apiKey?: string): DossierProcess;
  /** Starts `dossier <argv>` (with this world's environment, and `env` over it). */
  startCli(argv: readonly string[], env?: Record<string, string>): DossierProcess;
  /** Terminates every connection of the `dossier` processes to PostgreSQL; how many. */
  terminateBackends(): Promise<number>;
  /** Chat requests the model server received. */
  modelRequests(): number;
}

/** Options of {@link startFaultWorld}. */
export interface FaultWorldOptions extends WorldOptions {
  /** Extra environment of the `dossier` processes. */
  env?: Record<string, string>;
}

/** Starts a fault world; its cleanups go to `cleanups` (run in reverse order by the test). */
export async function startFaultWorld(
  options: FaultWorldOptions,
  cleanups: Array<() => Promise<unknown> | unknown>,
): Promise<FaultWorld> {
  const tag = randomBytes(5).toString("hex");
  const schema = `dossier_fault_${tag}`;
  const applicationName = `dossier-fault-${tag}`;
  const redis = await startOwnRedis();
  cleanups.push(() => redis.stop());
  const world = await startResearchWorld(options);
  cleanups.push(() => world.close());
  const base = new URL(TEST_DATABASE_URL);
  base.searchParams.set("schema", schema);
  const ownUrl = base.toString();
  base.searchParams.set("application_name", applicationName);
  const databaseUrl = base.toString();
  const queueUrl = redis.url(`fault${tag}`);
  cleanups.push(async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });
  const dossier = createDossier({
    env: {},
    cwd: world.home,
    config: { ...world.config, databaseUrl: ownUrl },
  });
  cleanups.push(() => dossier.close());
  await dossier.store.ready();
  const queue = openRunQueue({ url: queueUrl, readyTimeoutMs: 2_000 });
  cleanups.push(async () => {
    // Bounded: a test that failed while its Redis was stopped leaves nothing to remove there.
    const bounded = (work: Promise<unknown>) =>
      Promise.race([work.catch(() => {}), new Promise((resolve) => setTimeout(resolve, 3_000))]);
    const raw = new Queue(RUN_QUEUE, { connection: queue.target.connection, prefix: queue.target.prefix });
    raw.on("error", () => {});
    await bounded(raw.obliterate({ force: true }));
    await bounded(raw.close());
    await bounded(queue.close());
  });
  const env = {
    ...worldEnv(world),
    DOSSIER_CONCURRENCY: "4",
    DOSSIER_LLM_CONCURRENCY: "64",
    DOSSIER_DATABASE_URL: databaseUrl,
    ...options.env,
  };
  const startCli = (argv: readonly string[], more: Record<string, string> = {}) =>
    startDossier(argv, { cwd: world.home, env: { ...env, ...more } }, cleanups);
  return {
    world,
    redis,
    schema,
    applicationName,
    databaseUrl,
    queueUrl,
    dossier,
    queue,
    env,
    startCli,
    startWorker: (args = [], apiKey?: string) =>
      startCli(["worker", "--queue", queueUrl, "--json", ...args], apiKey ? { DOSSIER_API_KEY: apiKey } : {}),
    async terminateBackends() {
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      try {
        const { rows } = await admin.query(
          `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
           WHERE application_name = $1 AND pid <> pg_backend_pid()`,
          [applicationName],
        );
        return rows.filter((r: { ok: boolean }) => r.ok).length;
      } finally {
        await admin.end();
      }
    },
    modelRequests: () => world.model.requests.filter((r) => r.path.endsWith("/chat/completions")).length,
  };
}
