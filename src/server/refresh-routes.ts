/**
 * POST /v1/runs/{id}/refresh (mounted under `/v1`): a new version of a finished run's report,
 * started as a refresh run of its own (the web UI's refresh button). It answers once the run is
 * checked and its run created — an unknown run is a 404; an unfinished one, an older version of
 * a report, or a report another refresh is writing is a 409, before any model call — and the
 * refresh goes on in the background: follow its event stream; its `report-diff` event names the
 * sections rewritten, and GET /v1/runs/{id}/diff/{format} serves the diff.
 */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { budgetLimitsSchema } from "../core/budget.ts";
import { refreshMaxSearchesSchema } from "../runtime/refresh-definition.ts";
import type { ApiServices } from "./api-services.ts";
import { Run, runIdParam } from "./components.ts";
import { createRouter, errorResponses, jsonResponse } from "./route-kit.ts";
import { downloadFormatSchema } from "./schemas.ts";

/** The body of a refresh: every field optional (`{}` refreshes with the run's own settings). */
export const RefreshBody = z
  .strictObject({
    budget: budgetLimitsSchema
      .strict()
      .optional()
      .describe("limits of the refresh (as for a research run); an absent field means unlimited"),
    formats: z
      .array(downloadFormatSchema)
      .min(1)
      .optional()
      .describe("report formats to write (default: the formats of the run refreshed)"),
    maxSearches: refreshMaxSearchesSchema.optional(),
    currentDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD")
      .optional()
      .describe("the current date the refresh reasons with (default today)"),
  })
  .openapi("RefreshBody");

/** The answer of a refresh: the new run, the run it refreshes and the version it writes. */
export const RefreshResponse = z
  .object({
    run: Run,
    refreshOf: z.string().describe("the id of the run refreshed"),
    version: z
      .number()
      .int()
      .min(2)
      .describe("the version this refresh writes (the first research run is 1)"),
  })
  .openapi("RefreshResponse");

const refreshRun = createRoute({
  method: "post",
  path: "/runs/{id}/refresh",
  operationId: "refreshRun",
  tags: ["runs"],
  summary: "Refresh a finished run's report",
  description:
    "Starts a refresh run: the report's cited pages are fetched again (conditionally where the server supports it) and its searches run again; only the sections whose evidence changed are rewritten, the others are kept byte for byte, and a diff is written beside the new version (GET /v1/runs/{id}/diff/{format}). Answers once the run is checked; the refresh goes on in the background. With no change, no model is called. The body may be `{}`. Each version is written by one run: a refresh of a report another refresh is writing, or of a version that is not the latest, is a 409 naming that refresh or the latest version.",
  request: {
    params: z.object({ id: runIdParam }),
    body: {
      required: false,
      description: "the refresh's budget, formats and searches (all optional)",
      content: { "application/json": { schema: RefreshBody } },
    },
  },
  responses: {
    201: {
      ...jsonResponse("the refresh run, once checked", RefreshResponse),
      headers: z.object({ location: z.string().openapi({ description: "the refresh run's URL" }) }),
    },
    ...errorResponses(400, 404, 409, 422),
  },
});

/** The refresh route (mounted under `/v1`). */
export function refreshRoutes(services: () => ApiServices): OpenAPIHono {
  const app = createRouter();
  app.openapi(refreshRun, async (c) => {
    const { dossier, runs } = services();
    const { id } = c.req.valid("param");
    const body = (c.req.valid("json") ?? {}) as z.infer<typeof RefreshBody>;
    const { startRefresh } = await import("../runtime/refresh.ts");
    let started!: () => void;
    const ready = new Promise<void>((resolve) => {
      started = resolve;
    });
    const { handle, refreshOf, version } = await startRefresh(dossier, id, {
      onEvent: (event) => {
        if (event.type === "run-start") started();
      },
      ...(body.budget ? { budget: body.budget } : {}),
      ...(body.formats ? { formats: body.formats } : {}),
      ...(body.maxSearches === undefined ? {} : { maxSearches: body.maxSearches }),
      ...(body.currentDate ? { currentDate: body.currentDate } : {}),
    });
    // Answered once the run has started (its record exists); a request refused while it is
    // prepared (no model, say) or created (its version taken meanwhile by a refresh elsewhere:
    // CONFLICT) rejects here with its coded error.
    await Promise.race([ready, handle.done.then(() => undefined)]);
    c.header("Location", `/v1/runs/${handle.runId}`);
    return c.json({ run: await runs.view(handle.runId), refreshOf, version }, 201);
  });
  return app;
}
