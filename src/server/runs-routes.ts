/**
 * The run endpoints: create, list, get, cancel and resume (mounted under `/v1`). A run's event
 * stream and report downloads are in `run-output-routes.ts`.
 */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { runStatusSchema } from "../core/run.ts";
import type { ApiServices } from "./api-services.ts";
import { CreateRunBody, RunAction, RunList, RunResponse, runIdParam } from "./components.ts";
import { bodyRoute, createRouter, errorResponses, jsonResponse } from "./route-kit.ts";

const limit = z
  .string()
  .refine((v) => /^\d{1,4}$/.test(v) && Number(v) >= 1 && Number(v) <= 1000, {
    error: (issue) => `expected a whole number from 1 to 1000, got "${String(issue.input)}"`,
  })
  .optional()
  .openapi({
    type: "integer",
    minimum: 1,
    maximum: 1000,
    default: 50,
    description: "at most this many runs",
  });
const status = z
  .enum(runStatusSchema.options, {
    error: (issue) => `expected one of ${runStatusSchema.options.join(", ")}, got "${String(issue.input)}"`,
  })
  .optional()
  .openapi({ description: "only runs with this status" });

const createRun = bodyRoute(
  {
    method: "post",
    path: "/runs",
    operationId: "createRun",
    tags: ["runs"],
    summary: "Start a research run",
    description:
      "Answers once the request is checked (the strategy, its options, the model and the sources); the run goes on in the background. Follow it with its event stream.",
    request: {
      headers: z.object({
        "idempotency-key": z.string().optional().openapi({
          description:
            "1 to 200 visible ASCII characters naming this run: a request with a key already used is answered 200 with the run the key names (409 when that run was asked with another question or strategy), so a retried request creates one run",
        }),
      }),
    },
    responses: {
      200: {
        ...jsonResponse("the run an Idempotency-Key already names (nothing new is created)", RunResponse),
        headers: z.object({ location: z.string().openapi({ description: "the run's URL" }) }),
      },
      201: {
        ...jsonResponse("the run, once its request is checked", RunResponse),
        headers: z.object({ location: z.string().openapi({ description: "the run's URL" }) }),
      },
      ...errorResponses(400, 409, 413, 422, 429, 503),
    },
  },
  { schema: CreateRunBody, description: "the question and how to research it" },
);

const listRuns = createRoute({
  method: "get",
  path: "/runs",
  operationId: "listRuns",
  tags: ["runs"],
  summary: "List stored runs, newest first",
  request: {
    query: z.object({ limit, status }),
  },
  responses: { 200: jsonResponse("the runs", RunList), ...errorResponses(400) },
});

const getRun = createRoute({
  method: "get",
  path: "/runs/{id}",
  operationId: "getRun",
  tags: ["runs"],
  summary: "One run",
  request: { params: z.object({ id: runIdParam }) },
  responses: { 200: jsonResponse("the run", RunResponse), ...errorResponses(404) },
});

const cancelRun = createRoute({
  method: "post",
  path: "/runs/{id}/cancel",
  operationId: "cancelRun",
  tags: ["runs"],
  summary: "Cancel a run under way",
  description: "The run is recorded as cancelled and can be resumed.",
  request: { params: z.object({ id: runIdParam }) },
  responses: { 202: jsonResponse("cancelling", RunAction), ...errorResponses(404, 409) },
});

const resumeRun = createRoute({
  method: "post",
  path: "/runs/{id}/resume",
  operationId: "resumeRun",
  tags: ["runs"],
  summary: "Resume an interrupted, cancelled or failed run",
  description: "The run keeps its id; its event log continues after the last event.",
  request: { params: z.object({ id: runIdParam }) },
  responses: {
    202: jsonResponse("the resumed run", RunResponse),
    ...errorResponses(404, 409, 429, 503),
  },
});

/** The `/runs` routes (mounted under `/v1`). */
export function runsRoutes(services: () => ApiServices): OpenAPIHono {
  const app = createRouter();

  app.openapi(createRun, async (c) => {
    const key = c.req.valid("header")["idempotency-key"];
    const { run, replayed } = await services().runs.create(
      c.req.valid("json"),
      key === undefined ? {} : { idempotencyKey: key },
    );
    c.header("Location", `/v1/runs/${run.id}`);
    if (replayed) return c.json({ run }, 200);
    return c.json({ run }, 201);
  });

  app.openapi(listRuns, async (c) => {
    const { limit, status } = c.req.valid("query");
    const runs = await services().runs.list({
      limit: limit === undefined ? 50 : Number(limit),
      ...(status ? { status } : {}),
    });
    return c.json({ runs }, 200);
  });

  app.openapi(getRun, async (c) => c.json({ run: await services().runs.view(c.req.valid("param").id) }, 200));

  app.openapi(cancelRun, async (c) => c.json(await services().runs.cancel(c.req.valid("param").id), 202));

  app.openapi(resumeRun, async (c) => {
    const { runs } = services();
    const handle = await runs.resume(c.req.valid("param").id);
    return c.json({ run: await runs.view(handle.runId) }, 202);
  });

  return app;
}
