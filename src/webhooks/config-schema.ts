/**
 * The `webhooks` settings of the configuration: URLs called for every research run, the signing
 * secret (`DOSSIER_WEBHOOK_SECRET`), and how deliveries are retried and bounded.
 */

import { z } from "zod";
import { isWebhookSecret, SECRET_FORM } from "./secret.ts";
import { MAX_WEBHOOKS, webhookUrlSchema } from "./url-schema.ts";

/** Attempts of a delivery at most, by default (the first and six retries over about an hour). */
export const DEFAULT_MAX_ATTEMPTS = 7;
/** Delay before the first retry, doubled at each one, by default. */
export const DEFAULT_BASE_DELAY_MS = 60_000;
/** Longest delay between two attempts, by default. */
export const DEFAULT_MAX_DELAY_MS = 30 * 60_000;
/** Time limit of one attempt, by default (the specification recommends 15 to 30 s). */
export const DEFAULT_TIMEOUT_MS = 15_000;
/** How long a process that ran a run waits, when it exits, for that run's first attempts. */
export const DEFAULT_EXIT_WAIT_MS = 15_000;

/** The `webhooks` settings. */
export const webhookConfigSchema = z
  .object({
    urls: z
      .array(webhookUrlSchema)
      .max(MAX_WEBHOOKS)
      .default([])
      .describe("webhook URLs called for every research run, besides the run's own"),
    secret: z
      .string()
      .refine((v) => isWebhookSecret(v.trim()), { message: `expected ${SECRET_FORM}` })
      .optional()
      .describe("the signing secret of webhooks, whsec_… (DOSSIER_WEBHOOK_SECRET)"),
    maxAttempts: z
      .number()
      .int()
      .min(1)
      .max(20)
      .default(DEFAULT_MAX_ATTEMPTS)
      .describe("attempts of a delivery at most before it is given up"),
    baseDelayMs: z
      .number()
      .int()
      .min(100)
      .max(3_600_000)
      .default(DEFAULT_BASE_DELAY_MS)
      .describe("delay before the first retry, doubled at each retry (±25% jitter)"),
    maxDelayMs: z
      .number()
      .int()
      .min(100)
      .max(86_400_000)
      .default(DEFAULT_MAX_DELAY_MS)
      .describe("longest delay between two attempts"),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(DEFAULT_TIMEOUT_MS)
      .describe("time limit of one attempt"),
    exitWaitMs: z
      .number()
      .int()
      .min(0)
      .max(120_000)
      .default(DEFAULT_EXIT_WAIT_MS)
      .describe("how long a command that ran a run waits, when it ends, for that run's first attempts"),
  })
  .strict();

/** The `webhooks` settings, defaults applied. */
export type WebhookConfig = z.output<typeof webhookConfigSchema>;

/** The settings with every default. */
export const DEFAULT_WEBHOOK_CONFIG: WebhookConfig = webhookConfigSchema.parse({});
