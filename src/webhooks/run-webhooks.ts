/**
 * The webhooks of a new run: the request's own and the configured ones, each once, checked by
 * the SSRF guard as page fetches are (`allowPrivateNetwork`), at most ten; with any, a signing
 * secret must be set. Checked when the run is prepared, before its first model call.
 */

import type { WebhookConfig } from "./config-schema.ts";
import { signingKey } from "./secret.ts";

/** Where the signing secret is set, for messages. */
export const SECRET_SETTING = "DOSSIER_WEBHOOK_SECRET (or webhooks.secret in the configuration)";

/**
 * The run's webhooks; NETWORK_REFUSED or INPUT_INVALID naming a refused URL, CONFIG_INVALID
 * when there are webhooks and no well-formed signing secret.
 */
export async function webhooksForRun(
  own: readonly string[] | undefined,
  config: { webhooks: WebhookConfig; allowPrivateNetwork: boolean },
): Promise<string[]> {
  if (!own?.length && config.webhooks.urls.length === 0) return [];
  // The SSRF guard loads with the first run that has webhooks.
  const { runWebhooks } = await import("./urls.ts");
  const urls = runWebhooks(own ?? [], config.webhooks.urls, {
    allowPrivateNetwork: config.allowPrivateNetwork,
  });
  if (urls.length > 0) signingKey(config.webhooks.secret, SECRET_SETTING);
  return urls;
}
