/**
 * A tool failure (a `ToolError`, what a tool call returns instead of throwing) as the typed
 * DossierError that callers throw or report: its code kept when it is one of Dossier's codes,
 * `TOOL_ERROR` otherwise.
 */

import { DossierError, type DossierErrorCode, ERROR_CODES } from "../core/errors.ts";
import type { ToolError } from "./types.ts";

/** `code` when it is one of Dossier's error codes, else `TOOL_ERROR`. */
export function toolErrorCode(code: string): DossierErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code) ? (code as DossierErrorCode) : "TOOL_ERROR";
}

/** The DossierError of a tool failure, with `details` (e.g. the provider). */
export function toolFailure(error: ToolError, details: Record<string, unknown> = {}): DossierError {
  return new DossierError(toolErrorCode(error.code), error.message, { retryable: error.retryable, details });
}
