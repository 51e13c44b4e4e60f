/**
 * Reading a JSON request body and validating it with its zod schema: 400 INPUT_INVALID with a
 * message naming the field, or saying the body is not JSON.
 */

import type { Context } from "hono";
import type { z } from "zod";
import { ApiError } from "./errors.ts";
import { describeIssue } from "./schemas.ts";

/** The request's JSON body, validated by `schema`. */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
    throw new ApiError(
      400,
      "INPUT_INVALID",
      "the request body must be JSON (Content-Type: application/json)",
    );
  }
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch (cause) {
    if (cause instanceof ApiError) throw cause;
    throw new ApiError(400, "INPUT_INVALID", "the request body is not valid JSON");
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ApiError(400, "INPUT_INVALID", describeIssue(parsed.error));
  return parsed.data;
}
