/**
 * The form of webhook URLs in requests and the configuration: http(s), without credentials, at
 * most {@link MAX_WEBHOOKS} per run. (The SSRF guard's check, `urls.ts`, is loaded when a run
 * has webhooks.)
 */

import { z } from "zod";

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
