/**
 * The configuration schema: every setting Dossier reads, with its defaults. Values come from
 * flags > environment > `dossier.config.json` > defaults (see config-load.ts).
 */

import { z } from "zod";
import { budgetLimitsSchema } from "../core/budget.ts";
import { redactUrl } from "../core/url-redact.ts";
import { modelPriceSchema } from "../core/usage.ts";
import { isModelSpec, MODEL_SPEC_FORM, ROLES } from "../llm/model-spec.ts";
import { STRUCTURED_OUTPUT_MODES } from "../llm/structured-mode.ts";
import { sourceFilterSchema } from "../tools/source-filter.ts";
import { DEFAULT_WEBHOOK_CONFIG, webhookConfigSchema } from "../webhooks/config-schema.ts";

/** Web search providers Dossier can call. */
export const SEARCH_PROVIDERS = ["tavily", "exa", "brave", "serper", "searxng", "jina"] as const;
/** A web search provider. */
export type SearchProviderName = (typeof SEARCH_PROVIDERS)[number];

/** Academic search providers Dossier can call. */
export const ACADEMIC_PROVIDERS = ["arxiv", "openalex"] as const;

/** Default data directory. */
export const DEFAULT_HOME = "./.dossier";

const modelString = z.string().refine(isModelSpec, { message: `expected ${MODEL_SPEC_FORM}` });
const httpUrl = z
  .string()
  .refine((v) => /^https?:\/\/[^\s]+$/i.test(v) && URL.canParse(v), { message: "expected an http(s) URL" })
  .refine((v) => !URL.canParse(v) || (!new URL(v).username && !new URL(v).password), {
    message:
      "credentials in the URL (user:password@) are not accepted; put the key in its own setting (e.g. DOSSIER_API_KEY) or in a reverse proxy",
  });

/** The configuration. */
export const configSchema = z
  .object({
    model: modelString.optional().describe("default model of every role (DOSSIER_MODEL)"),
    models: z
      .partialRecord(z.enum(ROLES), modelString)
      .default({})
      .describe("per-role models (DOSSIER_MODEL_<ROLE>)"),
    baseUrl: httpUrl
      .optional()
      .describe("base URL for openai-compatible and ollama models (DOSSIER_BASE_URL)"),
    apiKey: z.string().min(1).optional().describe("key sent to the model provider (DOSSIER_API_KEY)"),
    providerKeys: z
      .object({
        openai: z.string().min(1).optional(),
        anthropic: z.string().min(1).optional(),
        google: z.string().min(1).optional(),
      })
      .strict()
      .default({}),
    search: z
      .array(z.enum(SEARCH_PROVIDERS))
      .default([])
      .describe("web search providers in fallback order (DOSSIER_SEARCH)"),
    searchKeys: z
      .object({
        tavily: z.string().min(1).optional(),
        exa: z.string().min(1).optional(),
        brave: z.string().min(1).optional(),
        serper: z.string().min(1).optional(),
        jina: z.string().min(1).optional(),
      })
      .strict()
      .default({}),
    searxngUrl: httpUrl.optional(),
    academic: z
      .array(z.enum(ACADEMIC_PROVIDERS))
      .default([])
      .describe(
        "academic search providers in fallback order, for the academic_search tool (DOSSIER_ACADEMIC)",
      ),
    openalexEmail: z
      .string()
      .regex(/^[^\s@]+@[^\s@]+$/, { message: "expected an email address" })
      .optional()
      .describe("address for OpenAlex's polite pool (OPENALEX_EMAIL)"),
    home: z.string().min(1).default(DEFAULT_HOME).describe("data directory (DOSSIER_HOME)"),
    databaseUrl: z
      .string()
      .regex(/^postgres(ql)?:\/\/\S+$/i, { message: "expected a postgres:// URL" })
      .optional()
      .describe(
        "a PostgreSQL database for runs, events, journals and the cache, shared by several processes (DOSSIER_DATABASE_URL); without it, SQLite under home",
      ),
    redisUrl: z
      .string()
      .regex(/^rediss?:\/\/\S+$/i, { message: "expected a redis:// URL" })
      .optional()
      .describe(
        "a Redis server for the run queue: serve and batch enqueue runs, dossier worker processes run them (DOSSIER_REDIS_URL)",
      ),
    allowPrivateNetwork: z.boolean().default(false),
    webhooks: webhookConfigSchema
      .default(DEFAULT_WEBHOOK_CONFIG)
      .describe(
        "signed callbacks when runs end or await review: urls for every run, secret (DOSSIER_WEBHOOK_SECRET), retries and time limits (docs/webhooks.md)",
      ),
    sourceFilter: sourceFilterSchema
      .optional()
      .describe(
        "default source filter of research runs: domains (allow list), excludeDomains (deny list), since (YYYY-MM-DD); a run's own filter replaces it",
      ),
    modelConcurrency: z
      .number()
      .int()
      .min(1)
      .max(1024)
      .optional()
      .describe(
        "model requests in flight at once per model provider, kept by every dossier worker of the run queue together (DOSSIER_LLM_CONCURRENCY; default 8)",
      ),
    providerLimits: z
      .record(
        z.string().min(1),
        z
          .object({
            concurrency: z.number().int().min(1).max(1024).optional(),
            ratePerSecond: z.number().positive().max(10_000).optional(),
          })
          .strict(),
      )
      .optional()
      .describe(
        "limits the dossier workers of the run queue keep together, by provider (a search provider's name, or model:<provider>), over the built-in ones",
      ),
    allowedHosts: z
      .array(
        z.string().regex(/^(\[[0-9a-f:.]+\]|[a-z0-9_-]+(\.[a-z0-9_-]+)*)(:\d{1,5})?$/i, {
          message: "expected a host name, optionally with a port (dossier.example.com, box.lan:8787)",
        }),
      )
      .optional()
      .describe(
        "host names dossier serve answers to besides its bound address, `name` or `name:port` (DOSSIER_ALLOWED_HOSTS; --allowed-host)",
      ),
    accessLog: z
      .string()
      .min(1)
      .optional()
      .describe(
        "dossier serve's access log: stderr (default), off, or a file path (DOSSIER_ACCESS_LOG; --access-log)",
      ),
    telemetry: z
      .object({
        enabled: z
          .boolean()
          .default(false)
          .describe("send OpenTelemetry spans of runs, model calls and tool calls (DOSSIER_OTEL)"),
        endpoint: httpUrl
          .optional()
          .describe(
            "OTLP/HTTP collector; spans go to <endpoint>/v1/traces (OTEL_EXPORTER_OTLP_ENDPOINT wins; default http://localhost:4318)",
          ),
        recordContent: z
          .boolean()
          .default(false)
          .describe("also record the question, prompts and model answers in spans (DOSSIER_OTEL_CONTENT)"),
      })
      .strict()
      .default({ enabled: false, recordContent: false })
      .describe("OpenTelemetry spans, off unless enabled; headers only from OTEL_EXPORTER_OTLP_HEADERS"),
    prices: z
      .record(modelString, modelPriceSchema)
      .default({})
      .describe("USD per million tokens by provider:model"),
    structuredOutput: z
      .record(modelString, z.enum(STRUCTURED_OUTPUT_MODES))
      .optional()
      .describe(
        "how structured answers are asked for, by provider:model: native (provider schema mode, the default) or prompt",
      ),
    contextWindows: z
      .record(modelString, z.number().int().min(512).max(100_000_000))
      .optional()
      .describe(
        "context window in tokens by provider:model: sent to Ollama as num_ctx (default 16384 for ollama: models), and smtl sizes its working windows from it",
      ),
    budget: budgetLimitsSchema.strict().default({}),
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(16)
      .describe(
        "independent units (agents, plan nodes, section writers) in flight at once: a budget, not a pace; providers keep their own limits (DOSSIER_CONCURRENCY)",
      ),
    language: z.string().min(2).optional(),
    reviewTimeoutMinutes: z
      .number()
      .positive()
      .max(525_600)
      .default(1440)
      .describe(
        "minutes a plan awaiting review (--review-plan) waits for its answer; then the run fails with REVIEW_TIMEOUT (DOSSIER_REVIEW_TIMEOUT; default a day)",
      ),
  })
  .strict();

/** The validated configuration. */
export type Config = z.infer<typeof configSchema>;

/** Setting paths that hold secrets; masked when shown. */
export const SECRET_PATHS = [
  "apiKey",
  "providerKeys.openai",
  "providerKeys.anthropic",
  "providerKeys.google",
  "searchKeys.tavily",
  "searchKeys.exa",
  "searchKeys.brave",
  "searchKeys.serper",
  "searchKeys.jina",
  "webhooks.secret",
] as const;

/** Shows a secret's shape without its value: `sk-…abcd`. */
export function maskSecret(value: string): string {
  if (value.length <= 8) return "****";
  return `${value.slice(0, 3)}…${value.slice(-4)}`;
}

/** A copy of the configuration with every secret masked (and the credentials of service URLs). */
export function maskedConfig(config: Config): Record<string, unknown> {
  const copy = structuredClone(config) as Record<string, Record<string, unknown> | unknown>;
  for (const key of ["databaseUrl", "redisUrl"] as const) {
    if (typeof copy[key] === "string") copy[key] = redactUrl(copy[key] as string);
  }
  for (const path of SECRET_PATHS) {
    const [head, tail] = path.split(".") as [string, string | undefined];
    if (tail === undefined) {
      if (typeof copy[head] === "string") copy[head] = maskSecret(copy[head] as string);
    } else {
      const group = copy[head] as Record<string, unknown> | undefined;
      if (group && typeof group[tail] === "string") group[tail] = maskSecret(group[tail] as string);
    }
  }
  return copy;
}
