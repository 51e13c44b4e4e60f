/**
 * Turning HTTP and network failures of tool providers into typed errors with retry hints.
 */

import { DossierError } from "../core/errors.ts";
import { parseRetryAfter } from "../core/retry.ts";

/** The typed error for a non-2xx answer of `provider`. */
export function httpStatusError(
  provider: string,
  response: Response,
  body: string,
  nowMs = Date.now(),
): DossierError {
  const status = response.status;
  const headers = Object.fromEntries(response.headers.entries());
  const retryAfterMs = parseRetryAfter(headers, nowMs);
  const excerpt = body.replace(/\s+/g, " ").trim().slice(0, 300);
  const details = { provider, status, retryAfterMs: retryAfterMs ?? null, body: excerpt };
  if (status === 429) {
    return new DossierError("RATE_LIMITED", `${provider}: rate limited (HTTP 429)`, {
      retryable: true,
      details,
    });
  }
  if (status === 401 || status === 403) {
    return new DossierError(
      "PROVIDER_NOT_CONFIGURED",
      `${provider}: HTTP ${status} — check the API key (${excerpt})`,
      {
        retryable: false,
        details,
      },
    );
  }
  const retryable = status >= 500 || status === 408;
  return new DossierError("PROVIDER_ERROR", `${provider}: HTTP ${status}${excerpt ? ` — ${excerpt}` : ""}`, {
    retryable,
    details,
  });
}

/** The typed error for a request that never got an HTTP answer. */
export function networkError(provider: string, error: unknown): DossierError {
  if (error instanceof DossierError) return error;
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const code = cause?.code ?? (error as { code?: string })?.code;
  const message = cause?.message ?? (error instanceof Error ? error.message : String(error));
  const permanent = code === "ENOTFOUND" || code === "ERR_INVALID_URL";
  return new DossierError("NETWORK_ERROR", `${provider}: ${message}${code ? ` (${code})` : ""}`, {
    retryable: !permanent,
    cause: error,
    details: { provider, code: code ?? null },
  });
}

/**
 * Fetches JSON from a provider endpoint: non-2xx answers and unparsable bodies become typed
 * errors.
 */
export async function fetchJson(
  provider: string,
  fetchFn: typeof globalThis.fetch,
  url: string,
  init: RequestInit,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchFn(url, init);
  } catch (error) {
    if ((init.signal as AbortSignal | undefined)?.aborted) throw (init.signal as AbortSignal).reason ?? error;
    throw networkError(provider, error);
  }
  const text = await response.text();
  if (!response.ok) throw httpStatusError(provider, response, text);
  try {
    return JSON.parse(text);
  } catch {
    throw new DossierError("PROVIDER_ERROR", `${provider}: the answer is not JSON`, {
      retryable: true,
      details: { provider, body: text.slice(0, 200) },
    });
  }
}
