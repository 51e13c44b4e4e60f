/**
 * The LLM client a run uses: the ordinary client, plus a watch for a model that cannot be used
 * at all (connection refused, host not found, 401/403, unknown model). Such a failure is not
 * something a strategy's fallback can work around, so the run is stopped at once and recorded
 * as failed with a MODEL_UNREACHABLE error naming the endpoint without its secrets.
 */

import { DossierError, isDossierError } from "../core/errors.ts";
import { redactUrl } from "../core/url-redact.ts";
import { LlmClient, type LlmClientOptions } from "../llm/client.ts";

const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/** The network failure anywhere in an error's cause chain (a code, or fetch's "bad port"). */
function networkCode(error: unknown): string | null {
  let e: unknown = error;
  for (let depth = 0; e && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && UNREACHABLE_CODES.has(code)) return code;
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && /^bad port$/i.test(message.trim())) return "blocked port";
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** A MODEL_UNREACHABLE error when `error` says the model cannot be used at all, else null. */
export function unreachableModelError(error: unknown, endpoint: string | undefined): DossierError | null {
  if (!isDossierError(error)) return null;
  if (error.code !== "PROVIDER_ERROR" && error.code !== "NETWORK_ERROR") return null;
  const status = error.details.statusCode;
  const network = networkCode(error);
  let why: string | null = null;
  if (status === 401 || status === 403) why = `HTTP ${status}: the API key was refused`;
  else if (status === 404) why = "HTTP 404: unknown model or wrong base URL";
  else if (network) why = `${network}: cannot connect`;
  if (!why) return null;
  const model = typeof error.details.model === "string" ? error.details.model : "the model";
  const where = endpoint ? ` at ${redactUrl(endpoint)}` : "";
  return new DossierError("MODEL_UNREACHABLE", `${model}${where} cannot be used (${why})`, {
    cause: error,
    details: { model, endpoint: endpoint ? redactUrl(endpoint) : null, statusCode: status ?? null, network },
  });
}

/** An LLM client that reports a model that cannot be used to `onUnreachable`. */
export class GuardedLlmClient extends LlmClient {
  readonly #onUnreachable: (error: DossierError) => void;
  readonly #endpoint: string | undefined;

  constructor(
    options: LlmClientOptions,
    guard: { endpoint?: string | undefined; onUnreachable: (error: DossierError) => void },
  ) {
    super(options);
    this.#onUnreachable = guard.onUnreachable;
    this.#endpoint = guard.endpoint;
  }

  override async call(...args: Parameters<LlmClient["call"]>): ReturnType<LlmClient["call"]> {
    try {
      return await super.call(...args);
    } catch (error) {
      const unreachable = unreachableModelError(error, this.#endpoint);
      if (unreachable) {
        this.#onUnreachable(unreachable);
        throw unreachable;
      }
      throw error;
    }
  }
}
