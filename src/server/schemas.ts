/**
 * The HTTP API's request and response shapes. Request bodies are validated with these
 * schemas, and the OpenAPI document is generated from the same ones.
 */

// zod as extended by @hono/zod-openapi: schemas made here can be named in the OpenAPI document.
import { z } from "@hono/zod-openapi";
import { budgetLimitsSchema } from "../core/budget.ts";
import { MAX_QUESTION_CHARS } from "../core/question-limit.ts";
import { REPORT_FORMATS, TEXT_REPORT_FORMATS } from "../core/report-formats.ts";
import { runRecordSchema } from "../core/run.ts";
import { sourcesSchema } from "../core/run-options.ts";
import { sourceFilterInputSchema } from "../tools/source-filter.ts";
import { timeRangeSchema } from "../tools/types.ts";
import { webhookUrlsSchema } from "../webhooks/url-schema.ts";
import { strategyOptionSchema } from "./strategy-options.ts";

const question = z
  .string()
  .trim()
  .min(3, "the question is empty or too short")
  .max(MAX_QUESTION_CHARS, `the question is longer than ${MAX_QUESTION_CHARS} characters`)
  .describe("the research question");
const strategy = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/, "expected a strategy name such as graph, minddr or offline")
  .describe("research strategy (default: graph with a model, offline with only a corpus)");
const corpus = z.string().min(1).max(200).describe("an indexed local corpus to search (see `dossier index`)");
const language = z.string().min(2).max(35).describe("report language code (default: the question's)");
const currentDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD")
  .describe("the current date the run reasons with (default today)");
/** A request's source filter (the run's, a search's or a fetch's), described for `what`. */
const sourceFilter = (what: string) =>
  sourceFilterInputSchema
    .optional()
    .describe(
      `which web sources ${what} may use: domains (allow list) and excludeDomains (deny list), at most 20 host names each, a domain covering the hosts below it; since (YYYY-MM-DD) drops results known to be older. Local documents are not filtered. Default: the server's configured filter`,
    );
const budget = budgetLimitsSchema.strict().describe("limits of the run; an absent field means unlimited");

/** The text report formats (md, html, json): those an MCP resource serves as text. */
export const reportFormatSchema = z.enum(TEXT_REPORT_FORMATS);
/** Every report format a run writes and the API downloads (pdf where chromium is installed). */
export const downloadFormatSchema = z.enum(REPORT_FORMATS);

/** POST /v1/runs: a research run, as `ResearchOptions` takes it. */
export const createRunBodySchema = z.strictObject({
  question,
  strategy: strategy.optional(),
  strategyOptions: z.record(z.string(), z.unknown()).optional().describe("the strategy's own options"),
  sources: sourcesSchema.optional().describe("where to look: web, local, both or local-only"),
  sourceFilter: sourceFilter("the run"),
  corpus: corpus.optional(),
  language: language.optional(),
  formats: z
    .array(downloadFormatSchema)
    .min(1)
    .optional()
    .describe(
      "report formats to write (default md, html and json); pdf needs chromium on the server (else 422 DEPENDENCY_MISSING)",
    ),
  budget: budget.optional(),
  currentDate: currentDate.optional(),
  verify: z
    .enum(["off", "check", "judge", "rewrite"])
    .optional()
    .describe(
      "claim verification after writing: check (default) the lexical check, no model call; judge the judge model checks each cited claim; rewrite also revises or drops unsupported claims; off none",
    ),
  reviewPlan: z
    .boolean()
    .optional()
    .describe(
      "stop after the strategy's plan until it is approved, edited or rejected (GET and POST /v1/runs/{id}/plan); the run is awaiting-review meanwhile",
    ),
  reviewTimeoutMinutes: z
    .number()
    .positive()
    .max(525_600)
    .optional()
    .describe(
      "minutes the plan waits for its answer (default the server's reviewTimeoutMinutes, a day); then the run fails with REVIEW_TIMEOUT, never approved",
    ),
  recordCalls: z
    .boolean()
    .optional()
    .describe(
      "keep every model call for training (messages, sampling, raw completion, format errors) as llm-call events in the run's log; they are not streamed",
    ),
  webhooks: webhookUrlsSchema
    .optional()
    .describe(
      "URLs called with a signed Standard Webhooks event when the run completes, fails, is cancelled or awaits review of its plan (besides the server's configured ones; at most 10; private and loopback addresses refused unless the server allows private networks; the server needs DOSSIER_WEBHOOK_SECRET). Deliveries: GET /v1/runs/{id}/webhooks",
    ),
});
/** A create-run body. */
export type CreateRunBody = z.output<typeof createRunBodySchema>;

/** POST /v1/ask: a deep-search question with a short answer. */
export const askBodySchema = z.strictObject({
  question,
  strategy: strategy.optional().describe("strategy (default smtl)"),
  steps: z.number().int().min(1).max(500).optional().describe("tool-calling steps at most"),
  sources: sourcesSchema.optional(),
  sourceFilter: sourceFilter("the run (a follow-up: default the run's it follows up on)"),
  corpus: corpus.optional(),
  language: language.optional(),
  budget: budget.optional(),
  currentDate: currentDate.optional(),
  about: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      "a finished run this question follows up on: answered from its evidence first, with its report's numbers",
    ),
  maxSearches: z
    .number()
    .int()
    .min(0)
    .max(5)
    .optional()
    .describe("with about: searches at most when the run's evidence does not suffice (default 2)"),
});
/** An ask body. */
export type AskBody = z.output<typeof askBodySchema>;

/**
 * POST /v1/search: one web search, a paper search with provider `arxiv` or `openalex`, or a
 * local-corpus search with provider `local`.
 */
export const searchBodySchema = z.strictObject({
  query: z.string().trim().min(1, "the search query is empty").max(2000).describe("what to search for"),
  provider: z
    .string()
    .regex(/^[a-z]+$/, "expected a provider name such as tavily, searxng or local")
    .optional()
    .describe(
      "one provider: a web one, arxiv or openalex for scholarly papers, or local for the local corpus (default: the configured web ones in order)",
    ),
  topK: z.number().int().min(1).max(50).optional().describe("number of results, 1–50 (default 5)"),
  timeRange: timeRangeSchema
    .optional()
    .describe("web and papers: results from the last day, week, month or year"),
  language: z
    .string()
    .regex(/^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i, "expected a language code such as en or pt-BR")
    .optional()
    .describe("web only: language of the wanted results"),
  sourceFilter: sourceFilter("the search (web and papers; results outside it are dropped)"),
  corpus: corpus.optional().describe("local only: the corpus to search (default `default`)"),
});
/** A search body. */
export type SearchBody = z.output<typeof searchBodySchema>;

/** POST /v1/fetch: read one page, or read it for a goal with the reader model. */
export const fetchBodySchema = z.strictObject({
  url: z.string().min(1).max(4000).describe("the http or https URL to read"),
  goal: z
    .string()
    .trim()
    .min(1, "the goal is empty")
    .max(2000)
    .optional()
    .describe("read the page for this goal with the reader model; verbatim evidence is returned"),
  maxBytes: z
    .number()
    .int()
    .min(1)
    .max(100 * 1024 * 1024)
    .optional()
    .describe("size limit of the response body (default 10 MiB)"),
  sourceFilter: sourceFilter(
    "the fetch (a URL or redirect outside it is refused with 403 SOURCE_FILTERED, never requested)",
  ),
});
/** A fetch body. */
export type FetchBody = z.output<typeof fetchBodySchema>;

/** An error answer. */
export const errorResponseSchema = z.object({
  error: z.object({
    code: z.string().describe("a stable code: INPUT_INVALID, UNAUTHORIZED, NOT_FOUND, RATE_LIMITED…"),
    message: z.string(),
  }),
});

/** A run as the API shows it: the stored record, or `queued` while it is being prepared. */
export const runViewSchema = runRecordSchema.extend({
  status: z.enum(["queued", "running", "completed", "failed", "cancelled", "interrupted", "awaiting-review"]),
  /** True while this server runs it. */
  active: z.boolean(),
  /** Report downloads by format, once the run has a report. */
  reports: z.record(z.string(), z.string()),
});
/** A run as the API shows it. */
export type RunView = z.output<typeof runViewSchema>;

/** A stored event (its payload fields depend on `type`). */
export const eventSchema = z
  .object({
    runId: z.string(),
    seq: z.number().int(),
    ts: z.string(),
    type: z.string(),
    scope: z.string().optional(),
  })
  .loose();
/** The answer of a cancel or resume request. */
export const runActionResponseSchema = z.object({ runId: z.string(), status: z.string() });
/** Search results (web), papers (with authors; the snippet is the abstract) or hits (local). */
export const searchResponseSchema = z.object({
  provider: z.string(),
  results: z.array(
    z
      .object({ title: z.string().optional(), url: z.string().optional(), snippet: z.string().optional() })
      .loose(),
  ),
});
/** A fetched page, or a goal-directed reading of it. */
export const fetchResponseSchema = z.object({ kind: z.enum(["page", "reading"]) }).loose();
/** A short answer with its evidence. */
export const askResponseSchema = z
  .object({
    runId: z.string(),
    status: z.string(),
    answer: z.string(),
    verified: z.boolean(),
    citations: z.array(z.unknown()),
    evidence: z.array(z.unknown()),
    stopReason: z.string(),
  })
  .loose();

/** A strategy of the registry, as the new-research form offers it. */
export const strategyInfoSchema = z.object({
  name: z.string(),
  description: z.string(),
  capabilities: z.object({
    needsModel: z.boolean().describe("needs a language model (false only for offline)"),
    web: z.boolean().describe("can search the web"),
    local: z.boolean().describe("can search a local corpus"),
  }),
  options: z.array(strategyOptionSchema).describe("the strategy's own options (strategyOptions of a run)"),
});
/** GET /v1/strategies: the strategy registry. */
export const strategyListResponseSchema = z.object({ strategies: z.array(strategyInfoSchema) });
/** GET /v1/corpora: the indexed local corpora by name. */
export const corpusListResponseSchema = z.object({ corpora: z.array(z.string()) });

const range = z.tuple([z.number(), z.number()]).describe("low and high");
/** POST /v1/estimate: the dry estimate of a run (the body is a create-run body; formats are ignored). */
export const estimateResponseSchema = z.object({
  estimate: z.object({
    strategy: z.string(),
    llmCalls: range,
    toolCalls: range,
    tokens: range,
    costUsd: range.nullable().describe("null when a model's price is unknown"),
    unpriced: z.array(z.string()).describe("models without a known price"),
    cappedBy: z.array(z.string()).describe("limits that cap the high end"),
  }),
});

/** The first problem of a failed parse, as `field: message`. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid request body";
  const field = issue.path.join(".");
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => (field ? `${field}.${k}` : k)).join(", ");
    return `unknown field${issue.keys.length > 1 ? "s" : ""}: ${keys}`;
  }
  return field ? `${field}: ${issue.message}` : issue.message;
}
