/**
 * Who executes runs and how busy they are (mounted under `/v1`): with the run queue, its depth
 * and the live workers (from their heartbeats on Redis) with the runs under way in each; without
 * it, this server as the one worker, its `--max-runs` as its slots. Both with the counts of runs
 * the store records as queued and running.
 */

import { hostname } from "node:os";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiServices } from "./api-services.ts";
import { createRouter, errorResponses, jsonResponse } from "./route-kit.ts";
import { withinServiceBound } from "./service-guard.ts";

/** How many stored runs of one status are counted at most. */
const COUNT_CAP = 1000;

const Worker = z
  .object({
    name: z.string().openapi({ description: "`host:pid`" }),
    host: z.string(),
    pid: z.number().int(),
    concurrency: z.number().int().openapi({ description: "runs it takes at once" }),
    running: z.array(z.string()).openapi({ description: "ids of the runs under way in it" }),
    startedAt: z.string(),
    heartbeatAt: z.string().openapi({ description: "its last heartbeat (ISO)" }),
  })
  .openapi("Worker");

const Workers = z
  .object({
    mode: z.enum(["queue", "embedded"]).openapi({
      description:
        "`queue`: runs go to a queue on Redis for worker processes; `embedded`: this server runs them",
    }),
    queue: z
      .object({
        url: z.string().openapi({ description: "the queue's URL without its password" }),
        waiting: z.number().int(),
        active: z.number().int(),
        delayed: z.number().int().openapi({ description: "waiting to be retried" }),
        completed: z.number().int(),
        failed: z.number().int(),
      })
      .nullable()
      .openapi({ description: "the queue's jobs by state (null without a queue)" }),
    workers: z.array(Worker).openapi({ description: "the live workers (this server when embedded)" }),
    runs: z.object({ queued: z.number().int(), running: z.number().int() }).openapi({
      description: `runs the store records as queued and as running (each counted up to ${COUNT_CAP})`,
    }),
  })
  .openapi("Workers");

/** The answer of `GET /v1/workers`. */
export type WorkersView = z.output<typeof Workers>;

const listWorkers = createRoute({
  method: "get",
  path: "/workers",
  operationId: "listWorkers",
  tags: ["runs"],
  summary: "Queue depth, workers and their load",
  description:
    "With the run queue on Redis: its jobs by state and every worker whose heartbeat is current, with the runs under way in each. Without it: this server, which runs the runs itself.",
  responses: { 200: jsonResponse("the queue and the workers", Workers), ...errorResponses(503) },
});

const PROCESS_STARTED = new Date(Date.now() - process.uptime() * 1000).toISOString();

/** The workers view of the server's services. */
export async function workersView(services: ApiServices): Promise<WorkersView> {
  const { dossier, runs } = services;
  // Each service answers within the bound, or the request is 503 (see service-guard.ts).
  const [queued, running] = await withinServiceBound(
    Promise.all(
      (["queued", "running"] as const).map(
        async (status) => (await dossier.runs.list({ status, limit: COUNT_CAP })).length,
      ),
    ),
    "the store",
  );
  const counts = { queued: queued!, running: running! };
  if (runs.queued) {
    const { workers, ...jobs } = await withinServiceBound(runs.queued.status(), "the run queue");
    return { mode: "queue", queue: { url: runs.queued.queueDisplay, ...jobs }, workers, runs: counts };
  }
  const self = {
    name: `${hostname()}:${process.pid}`,
    host: hostname(),
    pid: process.pid,
    concurrency: runs.maxRuns,
    running: runs.active(),
    startedAt: PROCESS_STARTED,
    heartbeatAt: new Date(dossier.clock.now()).toISOString(),
  };
  return { mode: "embedded", queue: null, workers: [self], runs: counts };
}

/** The `/workers` route (mounted under `/v1`). */
export function workersRoutes(services: () => ApiServices): OpenAPIHono {
  const app = createRouter();
  app.openapi(listWorkers, async (c) => c.json(await workersView(services()), 200));
  return app;
}
