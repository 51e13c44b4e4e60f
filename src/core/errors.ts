/**
 * The one error class of Dossier. Every failure that crosses a module boundary is a
 * {@link DossierError} with a stable string {@link DossierErrorCode}, structured details
 * and an optional `cause`.
 */

/** Stable error codes. Never rename one: callers, logs and stored events depend on them. */
export const ERROR_CODES = [
  /** A configuration value is missing or malformed. */
  "CONFIG_INVALID",
  /** A `provider:model` string could not be parsed or names an unknown provider. */
  "MODEL_SPEC_INVALID",
  /** A model is needed but none is configured. */
  "MODEL_NOT_CONFIGURED",
  /** A provider needs a key or base URL that is not set. */
  "PROVIDER_NOT_CONFIGURED",
  /** A model or tool provider answered with an error. */
  "PROVIDER_ERROR",
  /**
   * The model cannot be used at all: its endpoint refuses connections or does not resolve, or
   * it answers 401/403 (credentials) or 404 (unknown model). A run stops at once.
   */
  "MODEL_UNREACHABLE",
  /** A provider answered 429 (or equivalent) and retries were exhausted. */
  "RATE_LIMITED",
  /** A call did not finish within its time limit. */
  "TIMEOUT",
  /** A model's answer could not be parsed into the requested structure. */
  "STRUCTURED_OUTPUT_FAILED",
  /** A budget limit was reached; `details.limit` names which one. */
  "BUDGET_EXCEEDED",
  /** The run was cancelled; `details.reason` says why. */
  "CANCELLED",
  /** A plan graph violates the legality rules. */
  "PLAN_ILLEGAL",
  /** An outline operation violates the outline rules. */
  "OUTLINE_INVALID",
  /** A citation or evidence id does not resolve. */
  "CITATION_INVALID",
  /** Input given by the user or a caller is malformed. */
  "INPUT_INVALID",
  /** A named thing (run, corpus, source) does not exist. */
  "NOT_FOUND",
  /** The thing is in a state that does not allow this (e.g. a run still running in another process). */
  "CONFLICT",
  /** The embedded store failed or holds data of an unknown schema version. */
  "STORE_ERROR",
  /** A tool call failed. */
  "TOOL_ERROR",
  /** A network address was refused by the SSRF guard. */
  "NETWORK_REFUSED",
  /** A URL the run's source filter does not allow (its domain lists); it was not fetched. */
  "SOURCE_FILTERED",
  /** A connection could not be made (DNS failure, refused, reset). */
  "NETWORK_ERROR",
  /** A provider's circuit breaker is open after repeated failures; the call was not made. */
  "CIRCUIT_OPEN",
  /** Content exceeded a size limit. */
  "TOO_LARGE",
  /** Content could not be read (unsupported type, corrupt file, no text layer). */
  "UNREADABLE",
  /**
   * A run ended without doing research: no tool call was made and no evidence gathered (e.g. a
   * search agent that insisted on finishing before its first call), or no report was written
   * from the evidence gathered.
   */
  "NO_RESEARCH",
  /**
   * A run made tool calls but gathered no evidence: every search and page read failed or found
   * nothing; `details.failures` counts the failed calls by tool and error code.
   */
  "NO_EVIDENCE",
  /**
   * A program or package this needs is not installed on this machine (e.g. chromium for PDF
   * reports); the message says what to install.
   */
  "DEPENDENCY_MISSING",
  /**
   * Not a failure: a run with `reviewPlan` stopped after its plan to wait for the user's review
   * (the run is `awaiting-review`; `details.deadline` says until when).
   */
  "AWAITING_REVIEW",
  /** A plan awaiting review was not answered before its deadline; the run ended without researching it. */
  "REVIEW_TIMEOUT",
  /** A bug: an invariant that should hold did not. */
  "INTERNAL",
] as const;

/** A stable error code. */
export type DossierErrorCode = (typeof ERROR_CODES)[number];

/** Options of a {@link DossierError}. */
export interface DossierErrorOptions {
  /** Structured, JSON-serialisable facts about the failure. */
  details?: Record<string, unknown>;
  /** Whether trying the same thing again may succeed. */
  retryable?: boolean;
  /** The underlying error. */
  cause?: unknown;
}

/** The error class every Dossier module throws. */
export class DossierError extends Error {
  /** The stable code. */
  readonly code: DossierErrorCode;
  /** Structured facts about the failure. */
  readonly details: Record<string, unknown>;
  /** Whether trying again may succeed. */
  readonly retryable: boolean;

  constructor(code: DossierErrorCode, message: string, options: DossierErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DossierError";
    this.code = code;
    this.details = options.details ?? {};
    this.retryable = options.retryable ?? false;
  }

  /** A plain object for events, logs and structured tool observations. */
  toJSON(): {
    code: DossierErrorCode;
    message: string;
    retryable: boolean;
    details: Record<string, unknown>;
  } {
    return { code: this.code, message: this.message, retryable: this.retryable, details: this.details };
  }
}

/** True when `error` is a {@link DossierError}, optionally with the given code. */
export function isDossierError(error: unknown, code?: DossierErrorCode): error is DossierError {
  return error instanceof DossierError && (code === undefined || error.code === code);
}

/** Wraps any thrown value as a {@link DossierError}, keeping DossierErrors as they are. */
export function toDossierError(error: unknown, fallback: DossierErrorCode = "INTERNAL"): DossierError {
  if (error instanceof DossierError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new DossierError(fallback, message, { cause: error });
}
