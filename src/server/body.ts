/**
 * Reading a JSON request body before it is validated: 400 INPUT_INVALID when the request does
 * not say it is JSON, or when its body is not valid JSON. The validator that follows reads the
 * same text again (it is kept by the request) and checks it against the route's schema.
 */

import type { MiddlewareHandler } from "hono";
import { ApiError } from "./errors.ts";

/** A JSON media type: `application/json` or `application/<something>+json`. */
const JSON_TYPE = /^application\/(?:[a-z0-9.-]+\+)?json$/;

/** The media type of a Content-Type header, lower-cased, without its parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Middleware: the request's body must be JSON; it is read and parsed once here. */
export const readJsonBody: MiddlewareHandler = async (c, next) => {
  if (!JSON_TYPE.test(mediaType(c.req.header("content-type")))) {
    throw new ApiError(
      400,
      "INPUT_INVALID",
      "the request body must be JSON (Content-Type: application/json)",
    );
  }
  const text = await c.req.text();
  try {
    JSON.parse(text);
  } catch {
    throw new ApiError(400, "INPUT_INVALID", "the request body is not valid JSON");
  }
  await next();
};
