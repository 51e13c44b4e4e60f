/**
 * Plan review over HTTP (mounted under `/v1`): `GET /runs/{id}/plan` reads the plan a run with
 * `reviewPlan` stopped after (or the one approved, edited or rejected), `POST /runs/{id}/plan`
 * answers it — approve, edit (the plan as the user wants it run) or reject. The run's status is
 * `awaiting-review` meanwhile, and its event stream shows `plan-review`, then `run-end` with that
 * status; after an approval the run goes on under the same id.
 */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { planAnswerSchema } from "../core/plan-edit.ts";
import { planChangesSchema, reviewPlanSchema } from "../core/review-plan.ts";
import { runStatusSchema } from "../core/run.ts";
import type { ApiServices } from "./api-services.ts";
import { Run, runIdParam } from "./components.ts";
import { bodyRoute, createRouter, errorResponses, jsonResponse } from "./route-kit.ts";

/**
 * A plan as it is reviewed: items with id, title, description, sub-items and the strategy's extras.
 * Rebuilt from the core schema's shape with the OpenAPI-extended `z`: zod 4 gives a schema its
 * `.openapi` when it is made, so the core's own schema has none when core loads first.
 */
export const PlanSchema = z.object(reviewPlanSchema.shape).openapi("Plan", {
  description:
    "a strategy's plan: ordered items (id, title, optional description, optional sub-items `children`, the strategy's own `extras`, shown but not edited) and the limits an edit must keep",
});

/** A run's plan review. */
export const PlanReview = z
  .object({
    runId: z.string(),
    status: runStatusSchema,
    stage: z
      .enum(["pending", "approved", "edited", "rejected", "timed-out"])
      .describe("pending while the run awaits the answer"),
    plan: PlanSchema.describe(
      "the plan awaiting review (also when rejected or timed out), or the plan approved to run",
    ),
    proposed: PlanSchema.describe("the plan as the strategy proposed it"),
    changes: planChangesSchema.nullable().describe("what an edit changed (null until answered)"),
    requestedAt: z.string(),
    deadline: z.string().describe("after it an unanswered review fails the run with REVIEW_TIMEOUT"),
    answeredAt: z.string().nullable(),
    reason: z.string().nullable().describe("a rejection's reason, or the timeout's"),
  })
  .openapi("PlanReview");

/** POST /v1/runs/{id}/plan. */
export const PlanAnswerBody = z.discriminatedUnion("action", planAnswerSchema.options).openapi("PlanAnswer", {
  description:
    'approve the plan as shown; edit: `plan.items` in the order to run them — an item with an id is the proposed item (reworded when its title or description changed; a description or sub-item list left out is kept), an item without one is added, a proposed item left out is removed; reject, with an optional reason (the run ends cancelled, stop reason "plan-rejected")',
});

/** The answer of POST /v1/runs/{id}/plan. */
export const PlanAnswered = z.object({ run: Run, review: PlanReview }).openapi("PlanAnswered");

const getPlan = createRoute({
  method: "get",
  path: "/runs/{id}/plan",
  operationId: "getRunPlan",
  tags: ["runs"],
  summary: "The plan a run awaits review of, or the one approved",
  description:
    "A run started with `reviewPlan` stops after its strategy's plan (status `awaiting-review`) until the plan is answered with POST. 404 when the run never stopped for one.",
  request: { params: z.object({ id: runIdParam }) },
  responses: { 200: jsonResponse("the run's plan review", PlanReview), ...errorResponses(404) },
});

const answerPlan = bodyRoute(
  {
    method: "post",
    path: "/runs/{id}/plan",
    operationId: "answerRunPlan",
    tags: ["runs"],
    summary: "Approve, edit or reject the plan a run awaits review of",
    description:
      "The answer is checked first (an edit against the plan's limits: 400 naming the field, nothing changed). An approved or edited plan is recorded and the run goes on with exactly that plan (here, or on a worker of the run queue); a rejected run ends cancelled. 409 when the run is not awaiting review, its review timed out, or another answer came first.",
    request: { params: z.object({ id: runIdParam }) },
    responses: {
      202: jsonResponse("the answer is recorded; the run goes on (or ended, when rejected)", PlanAnswered),
      ...errorResponses(404, 409, 422, 429, 503),
    },
  },
  { schema: PlanAnswerBody, description: "the answer to the review" },
);

/** The plan review routes (mounted under `/v1`). */
export function planRoutes(services: () => ApiServices): OpenAPIHono {
  const app = createRouter();

  app.openapi(getPlan, async (c) => c.json(await services().runs.plan(c.req.valid("param").id), 200));

  app.openapi(answerPlan, async (c) => {
    const { runs } = services();
    const { runId } = await runs.review(c.req.valid("param").id, c.req.valid("json"));
    return c.json({ run: await runs.view(runId), review: await runs.plan(runId) }, 202);
  });

  return app;
}
