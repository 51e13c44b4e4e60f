/**
 * How the server answers errors: `{ error: { code, message } }` with the HTTP status that fits
 * the code. Codes are the stable `DossierError` codes, plus a few that only HTTP has.
 */

import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type DossierError, type DossierErrorCode, isDossierError, toDossierError } from "../core/errors.ts";

/** Error codes of the HTTP API: a DossierError code or one of the server's own. */
export type ApiErrorCode =
  | DossierErrorCode
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "CONFLICT"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "NOT_IMPLEMENTED"
  | "SERVICE_UNAVAILABLE";

/** An error the server answers with a given status and code. */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: ApiErrorCode;
  /** Headers of the answer (such as `Retry-After`). */
  readonly headers: Record<string, string>;

  constructor(
    status: ContentfulStatusCode,
    code: ApiErrorCode,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** The HTTP status of a DossierError code. */
export function statusOf(code: string): ContentfulStatusCode {
  switch (code) {
    case "INPUT_INVALID":
    case "CONFIG_INVALID":
    case "MODEL_SPEC_INVALID":
    case "PLAN_ILLEGAL":
    case "OUTLINE_INVALID":
    case "NETWORK_REFUSED":
      return 400;
    case "UNAUTHORIZED":
      return 401;
    case "FORBIDDEN":
    // A URL outside the source filter (the request's or the server's): understood, and refused by
    // policy; asking again without changing the filter gets the same answer.
    case "SOURCE_FILTERED":
      return 403;
    case "NOT_FOUND":
      return 404;
    case "CONFLICT":
    case "CANCELLED":
      return 409;
    case "TOO_LARGE":
      return 413;
    case "UNSUPPORTED_MEDIA_TYPE":
      return 415;
    case "MODEL_NOT_CONFIGURED":
    case "PROVIDER_NOT_CONFIGURED":
    case "DEPENDENCY_MISSING":
      return 422;
    case "RATE_LIMITED":
      return 429;
    case "NOT_IMPLEMENTED":
      return 501;
    case "PROVIDER_ERROR":
    case "MODEL_UNREACHABLE":
    case "NETWORK_ERROR":
    case "CIRCUIT_OPEN":
    case "TOOL_ERROR":
    case "UNREADABLE":
      return 502;
    case "TIMEOUT":
      return 504;
    default:
      return 500;
  }
}

/** The JSON body of an error. */
export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

/**
 * The message an API caller reads: `details.apiMessage` where the error's message is phrased
 * for the command line (flags such as `--max-cost`) and the API's differs (fields such as
 * `budget.maxCostUsd`), else the message.
 */
export function apiMessage(error: DossierError): string {
  const phrased = error.details.apiMessage;
  return typeof phrased === "string" && phrased !== "" ? phrased : error.message;
}

/** The API error code of an HTTP status (for refusals made by middleware, not by Dossier). */
function codeOfStatus(status: number): ApiErrorCode {
  switch (status) {
    case 400:
      return "INPUT_INVALID";
    case 401:
      return "UNAUTHORIZED";
    case 403:
      return "FORBIDDEN";
    case 404:
      return "NOT_FOUND";
    case 413:
      return "TOO_LARGE";
    case 415:
      return "UNSUPPORTED_MEDIA_TYPE";
    default:
      return "INTERNAL";
  }
}

/**
 * Answers `error` as JSON: ApiErrors and DossierErrors keep their code, an HTTPException (a
 * refusal by middleware) keeps its status, anything else is INTERNAL.
 */
export function errorResponse(c: Context, error: unknown): Response {
  if (error instanceof ApiError)
    return c.json(errorBody(error.code, error.message), error.status, error.headers);
  if (error instanceof HTTPException && error.status >= 400 && error.status < 500) {
    return c.json(errorBody(codeOfStatus(error.status), error.message), error.status);
  }
  if (isDossierError(error)) return c.json(errorBody(error.code, apiMessage(error)), statusOf(error.code));
  const e = toDossierError(error);
  return c.json(errorBody("INTERNAL", e.message || "internal error"), 500);
}
