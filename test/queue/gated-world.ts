/**
 * A queue world on real PostgreSQL and Redis for the queue's own tests: a Dossier on a schema of
 * its own with the `gated` strategy (its runs wait at the test's gate, then write a one-line
 * report over a small local corpus, calling no model), a run queue at the given Redis URL,
 * queued research that follows its runs through the store, and in-process workers on demand.
 * Everything is removed when the test ends (through `cleanups`).
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { z } from "zod";
import { createOutline } from "../../src/core/outline.ts";
import { assembleReport } from "../../src/kit/report-assembly.ts";
import { queuedResearch } from "../../src/queue/queued-research.ts";
import { openRunQueue, type RunQueue } from "../../src/queue/run-queue.ts";
import { type RunWorkerOptions, startRunWorker } from "../../src/queue/run-worker.ts";
import { createDossier, type Dossier } from "../../src/runtime/dossier.ts";
import { indexNotes } from "../../src/server/test-fixtures.ts";
import type { StrategyDefinition } from "../../src/strategies/types.ts";
import { TEST_DATABASE_URL } from "../services.ts";

/** A gate the runs of the `gated` strategy wait at (a run cancelled while waiting ends cancelled). */
export const gate = { open: true, attempts: new Map<string, number>() };

const gatedDefinition: StrategyDefinition<Record<string, never>> = {
  name: "gated",
  description: "waits at the test's gate, then writes a one-line report",
  optionsSchema: z.object({}).strict(),
  roles: [],
  capabilities: { needsModel: false, web: false, local: false },
  estimate: () => ({ llm: [], tools: [0, 0] }),
  async run(ctx, input) {
    gate.attempts.set(ctx.query, (gate.attempts.get(ctx.query) ?? 0) + 1);
    ctx.emit({ type: "phase", phase: "waiting" });
    while (!gate.open) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const report = assembleReport(ctx, {
      title: ctx.query,
      outline: createOutline([{ title: "Answer", plan: "" }]),
      language: input.language,
      parts: [{ text: `## Answer\n\nAn answer to ${ctx.query}.`, allowed: new Set() }],
      stopReason: "completed",
    });
    return { stopReason: "completed", report };
  },
};
const gated = gatedDefinition as StrategyDefinition<never>;
export const REQUEST = {
  strategy: "gated",
  corpus: "notes",
  sources: "local" as const,
  formats: ["md" as const],
};

/** A Dossier on a PostgreSQL schema of its own, a queue on `redisUrl`, workers on demand. */
export async function gatedQueueWorld(redisUrl: string, cleanups: Array<() => Promise<unknown> | unknown>) {
  const home = mkdtempSync(join(tmpdir(), "dossier-lost-"));
  await indexNotes(home, home);
  const schema = `dossier_lost_${randomBytes(5).toString("hex")}`;
  const dossier: Dossier = createDossier({
    env: { DOSSIER_HOME: home },
    cwd: home,
    config: { databaseUrl: `${TEST_DATABASE_URL}?schema=${schema}` },
    strategies: [gated],
  });
  const queue: RunQueue = openRunQueue({ url: redisUrl, backoffMs: 50, readyTimeoutMs: 1_000 });
  cleanups.push(async () => {
    await queue.close();
    await dossier.close();
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
    rmSync(home, { recursive: true, force: true });
  });
  await dossier.store.ready();
  const startWorker = (options: Partial<Omit<RunWorkerOptions, "dossier" | "url">> = {}) => {
    const worker = startRunWorker({
      dossier,
      url: redisUrl,
      lockDurationMs: 2_000,
      sweepMs: 0,
      ...options,
      onNote: (n) => process.env.DEBUG_NOTES && process.stderr.write(`${JSON.stringify(n)}\n`),
    });
    cleanups.push(() => worker.close(true));
    return worker;
  };
  const queued = queuedResearch(dossier, queue, { pollMs: 50, followMs: 200, cwd: home });
  return { home, dossier, queue, queued, startWorker };
}
