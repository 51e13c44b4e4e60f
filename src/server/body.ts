/**
 * Request bodies. One size limit in front of every route: a body larger than it is answered 413
 * (TOO_LARGE) as soon as it passes the limit, with a Content-Length or without. Every JSON body must be UTF-8 (the only encoding JSON has between systems):
 * one declared in another charset is refused with 415, bytes that are not UTF-8 with 400,
 * never decoded with replacement characters. A route's JSON body is then read and parsed
 * before it is validated: 400 INPUT_INVALID when the request does not say it is JSON, or when
 * its body is not valid JSON. The validator that follows reads the same text again (the
 * request keeps it) and checks it against the route's schema.
 */

import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError, errorBody } from "./errors.ts";

/**
 * Middleware for every route, with a token or without (sign-in, the UI's routes): a body of
 * more than `maxBytes` bytes is refused with 413 as soon as it passes the limit (a declared
 * Content-Length over it at once, a chunked body while it is read, never read whole).
 */
export function bodySizeLimit(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      c.json(errorBody("TOO_LARGE", `the request body is larger than the limit of ${maxBytes} bytes`), 413),
  });
}

/** A JSON media type: `application/json` or `application/<something>+json`. */
const JSON_TYPE = /^application\/(?:[a-z0-9.-]+\+)?json$/;

/** The media type of a Content-Type header, lower-cased, without its parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The charset parameter of a Content-Type header, lower-cased, or null. */
export function charsetOf(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? "");
  return match ? (match[1] ?? match[2] ?? "").toLowerCase() : null;
}

/**
 * Middleware for every route: a JSON body declared in a charset other than UTF-8 is refused
 * (415), one whose bytes are not UTF-8 too (400). The body (already bounded by the body limit)
 * is read once here and handed on unchanged, also to handlers that read the raw request.
 */
export const utf8JsonBodies: MiddlewareHandler = async (c, next) => {
  const contentType = c.req.header("content-type");
  if (!c.req.raw.body || !JSON_TYPE.test(mediaType(contentType))) return next();
  const charset = charsetOf(contentType);
  if (charset !== null && charset !== "utf-8" && charset !== "utf8") {
    throw new ApiError(
      415,
      "UNSUPPORTED_MEDIA_TYPE",
      `the request body must be JSON in UTF-8, not in charset "${charset}"`,
    );
  }
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError(400, "INPUT_INVALID", "the request body is not valid UTF-8");
  }
  c.req.raw = new Request(c.req.raw, { body: bytes });
  await next();
};

/** Middleware of a route with a JSON body: the body must be JSON; it is read and parsed here. */
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
