/**
 * Webhook URLs: http(s), without credentials, at most {@link MAX_WEBHOOKS} per run, and refused
 * up front by the SSRF guard when they name a private, loopback or metadata address (unless the
 * private network is allowed, as for page fetches). Host names that need DNS are checked again
 * at connect time by the guarded agent that sends the webhook.
 */

import { z } from "zod";
import { DossierError } from "../core/errors.ts";
import { checkPort } from "../tools/fetch/blocked-ports.ts";
import { checkUrl, type GuardOptions } from "../tools/fetch/ssrf-guard.ts";

/** Webhooks of one run at most (the run's own and the configured ones together). */
export const MAX_WEBHOOKS = 10;

/** One webhook URL as written in a request or the configuration. */
export const webhookUrlSchema = z
  .string()
  .max(2048, "a webhook URL is at most 2048 characters")
  .refine((v) => /^https?:\/\/\S+$/i.test(v) && URL.canParse(v), { message: "expected an http(s) URL" })
  .refine((v) => !URL.canParse(v) || (!new URL(v).username && !new URL(v).password), {
    message: "credentials in a webhook URL (user:password@) are not accepted",
  });

/** The webhook URLs of a request. */
export const webhookUrlsSchema = z.array(webhookUrlSchema).max(MAX_WEBHOOKS, {
  message: `at most ${MAX_WEBHOOKS} webhooks`,
});

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
