/**
 * Webhook URLs checked by the SSRF guard: refused up front when they name a private, loopback or
 * metadata address (unless the private network is allowed, as for page fetches), at most
 * {@link MAX_WEBHOOKS} per run. Host names that need DNS are checked again at connect time by the
 * guarded agent that sends the webhook.
 */

import { DossierError } from "../core/errors.ts";
import { checkPort } from "../tools/fetch/blocked-ports.ts";
import { checkUrl, type GuardOptions } from "../tools/fetch/ssrf-guard.ts";
import { MAX_WEBHOOKS } from "./url-schema.ts";

/**
 * The run's webhooks: `own` then `configured`, each once (as `URL` writes them), every one
 * checked by the SSRF guard (NETWORK_REFUSED naming it) and at most {@link MAX_WEBHOOKS}
 * (INPUT_INVALID).
 */
export function runWebhooks(
  own: readonly string[],
  configured: readonly string[],
  guard: GuardOptions,
): string[] {
  const urls = [...new Set([...own, ...configured].map((url) => checkedUrl(url, guard)))];
  if (urls.length > MAX_WEBHOOKS) {
    throw new DossierError(
      "INPUT_INVALID",
      `at most ${MAX_WEBHOOKS} webhooks per run, the run's and the configured ones together (got ${urls.length})`,
      { details: { webhooks: urls.length } },
    );
  }
  return urls;
}

/** `url` as `URL` writes it, once the guard allows it; the guard's error names it as a webhook. */
export function checkedUrl(url: string, guard: GuardOptions): string {
  try {
    return checkPort(checkUrl(url, guard)).href;
  } catch (error) {
    if (error instanceof DossierError) {
      throw new DossierError(error.code, `webhook ${url}: ${error.message}`, {
        retryable: false,
        details: { ...error.details, webhook: url },
      });
    }
    throw error;
  }
}
