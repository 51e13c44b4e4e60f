/**
 * What every route family shares: a router whose validation failures answer in the API's error
 * shape (400 INPUT_INVALID naming the field), routes whose JSON body is read before it is
 * validated, and the documented error answers.
 */

import { createRoute, OpenAPIHono, type RouteConfig, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { readJsonBody } from "./body.ts";
import { ErrorBody } from "./components.ts";
import { errorBody } from "./errors.ts";
import { describeIssue } from "./schemas.ts";

/** Answers a failed validation of a body, a path parameter or a query as 400 INPUT_INVALID. */
export function validationHook(
  result: { success: true } | { success: false; error: z.ZodError },
  c: Context,
) {
  if (!result.success) return c.json(errorBody("INPUT_INVALID", describeIssue(result.error)), 400);
  return undefined;
}

/** A router of one route family; mount it on the API with `route()`. */
export function createRouter(): OpenAPIHono {
  return new OpenAPIHono({ defaultHook: validationHook });
}

/**
 * A route with a required JSON body: the body is read and parsed by {@link readJsonBody} (400
 * when it is not JSON), then validated with `schema` (400 naming the field); its documented
 * answers include 400, 413 and 415.
 */
export function bodyRoute<
  P extends string,
  S extends z.ZodType,
  R extends Omit<RouteConfig, "path" | "request" | "middleware"> & {
    path: P;
    request?: Omit<NonNullable<RouteConfig["request"]>, "body">;
  },
>(config: R, body: { schema: S; description: string }) {
  return createRoute({
    ...config,
    responses: { ...errorResponses(400, 413, 415), ...config.responses },
    request: {
      ...config.request,
      body: {
        required: true,
        description: body.description,
        content: { "application/json": { schema: body.schema } },
      },
    },
    middleware: [readJsonBody] as const,
  });
}

const ERROR_TEXT = {
  400: "the request is invalid (the message names the field)",
  401: "missing or wrong token",
  403: "refused by policy: a URL (or a redirect) outside the source filter is SOURCE_FILTERED, never requested",
  404: "no such run, report or corpus",
  409: "the run is not in a state that allows this",
  413: "the request body is larger than the server's limit",
  415: "the request body is not JSON in UTF-8 (another charset was declared)",
  422: "the server's configuration cannot serve this (no model, no search provider, no chromium for PDF)",
  429: "too many runs at once",
  501: "not available in this version",
  502: "a provider or tool failed",
  503: "a service the server needs (the run queue's Redis, the store) does not answer; retry after the seconds `Retry-After` names",
} as const;
/** An error status the API documents. */
export type ErrorStatus = keyof typeof ERROR_TEXT;

const errorResponse = <S extends ErrorStatus>(status: S) => ({
  description: ERROR_TEXT[status],
  content: { "application/json": { schema: ErrorBody } },
});

/** The documented error answers of an operation behind the token: 401 and `statuses`. */
export function errorResponses<const S extends ErrorStatus = never>(
  ...statuses: S[]
): Record<NoInfer<S> | 401, ReturnType<typeof errorResponse>> {
  const entries = [401 as const, ...statuses].map((s) => [s, errorResponse(s)]);
  return Object.fromEntries(entries) as unknown as Record<S | 401, ReturnType<typeof errorResponse>>;
}

/** A JSON response of `schema`. */
export function jsonResponse<S extends z.ZodType>(description: string, schema: S) {
  return { description, content: { "application/json": { schema } } };
}
