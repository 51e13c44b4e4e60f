/**
 * The rollout service's routes (mounted under `/v1`), each defined once with its request
 * schemas and answers, so the OpenAPI document is made from the same definitions that
 * validate requests:
 *
 * - `POST /v1/rollouts` — a batch: 202 with its status once every check passed;
 * - `GET /v1/rollouts/{id}` — its status;
 * - `GET /v1/rollouts/{id}/events` — its progress as Server-Sent Events;
 * - `GET /v1/rollouts/{id}/results` — its rollouts with rewards and advantages;
 * - `POST /v1/rollouts/{id}/cancel` — cancels it (its runs stay resumable).
 */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { bodyRoute, createRouter, errorResponses, jsonResponse } from "../../server/route-kit.ts";
import { SERVICE_ANSWER_MS, unavailable } from "../../server/service-guard.ts";
import { resumeSeq } from "../../server/sse.ts";
import { batchEventSchema } from "./batch-events.ts";
import { streamBatchEvents } from "./batch-sse.ts";
import { batchResultsSchema, batchViewSchema } from "./batch-view.ts";
import { rolloutRequestSchema } from "./request.ts";
import type { RolloutService } from "./rollout-service.ts";

/** What the handlers use, resolved when a request arrives. */
export interface RolloutRouteServices {
  service: RolloutService;
  /** Keep-alive interval of event streams (ms). */
  keepAliveMs?: number;
}

const RolloutRequest = rolloutRequestSchema.openapi("RolloutRequest");
const BatchResponse = z
  .object({ batch: batchViewSchema.openapi("RolloutBatch") })
  .openapi("RolloutBatchResponse");
const BatchResults = batchResultsSchema.openapi("RolloutResults");
const BatchEvent = batchEventSchema.openapi("RolloutEvent");
const batchId = z.string().min(1).max(200).openapi({ description: "the batch's id" });
const seq = (description: string) =>
  z.string().optional().openapi({ type: "integer", minimum: 0, description });

const createBatch = bodyRoute(
  {
    method: "post",
    path: "/rollouts",
    operationId: "createRollouts",
    tags: ["rollouts"],
    summary: "Start a batch of group rollouts",
    description:
      "G recorded rollouts of every row, run by the policy endpoint, scored with the reward as each group ends. Everything is checked before anything is created or any model is called: the body, the strategy and its options, the rows against the reward, the judge model, the policy's key variable, and the policy version (409 when it is older than the latest requested and stale work is refused). Answers 202 with the batch; follow it on its event stream.",
    responses: {
      202: {
        ...jsonResponse("the batch, once its request is checked", BatchResponse),
        headers: z.object({ location: z.string().openapi({ description: "the batch's URL" }) }),
      },
      ...errorResponses(400, 409, 413, 422, 503),
    },
  },
  {
    schema: RolloutRequest,
    description: "the rows, the strategy, the group size, the policy and the reward",
  },
);

const getBatch = createRoute({
  method: "get",
  path: "/rollouts/{id}",
  operationId: "getRollouts",
  tags: ["rollouts"],
  summary: "A batch's status",
  request: { params: z.object({ id: batchId }) },
  responses: { 200: jsonResponse("the batch", BatchResponse), ...errorResponses(404) },
});

const streamEvents = createRoute({
  method: "get",
  path: "/rollouts/{id}/events",
  operationId: "streamRolloutEvents",
  tags: ["rollouts"],
  summary: "Follow a batch",
  description:
    "The batch's events as Server-Sent Events: `id` is the event's seq, `event` its type (`rollout-started`, `rollout-ended`, `group-scored`, `batch-end`) and `data` the event as JSON. Every rollout that ran has one `rollout-started` before its one `rollout-ended`; every group one `group-scored` after its rollouts' ends; the stream ends after `batch-end`. Reconnecting with `Last-Event-ID` (or `?after=`) sends only later events.",
  request: {
    params: z.object({ id: batchId }),
    query: z.object({ after: seq("resume after this seq (when Last-Event-ID cannot be sent)") }),
    headers: z.object({ "last-event-id": seq("resume after this seq") }),
  },
  responses: {
    200: { description: "the event stream", content: { "text/event-stream": { schema: BatchEvent } } },
    ...errorResponses(404),
  },
});

const getResults = createRoute({
  method: "get",
  path: "/rollouts/{id}/results",
  operationId: "getRolloutResults",
  tags: ["rollouts"],
  summary: "A batch's rollouts with their rewards and advantages",
  description:
    "Per rollout its run, status, policy version and `offPolicy` (its version is older than the latest requested), its reward with the reward's components and other output, and its advantage in its group; per group its rewards. Rollouts of groups not scored yet have no reward.",
  request: { params: z.object({ id: batchId }) },
  responses: { 200: jsonResponse("the results so far", BatchResults), ...errorResponses(404) },
});

const cancelBatch = createRoute({
  method: "post",
  path: "/rollouts/{id}/cancel",
  operationId: "cancelRollouts",
  tags: ["rollouts"],
  summary: "Cancel a batch",
  description: "Its runs under way are cancelled (resumable) and its waiting rollouts withdrawn.",
  request: { params: z.object({ id: batchId }) },
  responses: { 202: jsonResponse("cancelling", BatchResponse), ...errorResponses(404) },
});

/** The `/rollouts` routes (mounted under `/v1`). */
export function rolloutRoutes(services: () => RolloutRouteServices): OpenAPIHono {
  const app = createRouter();

  app.openapi(createBatch, async (c) => {
    const { service } = services();
    // A store or queue that does not answer refuses the batch (503) before anything is created.
    await service.ready(SERVICE_ANSWER_MS).catch((error: unknown) => {
      throw unavailable(error);
    });
    const batch = await service.create(c.req.valid("json"));
    c.header("Location", batch.links.self);
    return c.json({ batch }, 202);
  });

  app.openapi(getBatch, (c) => c.json({ batch: services().service.view(c.req.valid("param").id) }, 200));

  app.openapi(streamEvents, (c) => {
    const { service, keepAliveMs } = services();
    const log = service.events(c.req.valid("param").id);
    return streamBatchEvents(c, log, {
      afterSeq: resumeSeq(c),
      ...(keepAliveMs ? { keepAliveMs } : {}),
    }) as never;
  });

  app.openapi(getResults, async (c) =>
    c.json(await services().service.results(c.req.valid("param").id), 200),
  );

  app.openapi(cancelBatch, (c) => c.json({ batch: services().service.cancel(c.req.valid("param").id) }, 202));

  return app;
}
