/**
 * A research request: what `dossier research` and the library's `startResearch` accept.
 */

import { z } from "zod";
import { budgetLimitsSchema } from "../core/budget.ts";
import { VERIFY_MODES } from "../core/claim-verdicts.ts";
import { MAX_QUESTION_CHARS, questionTooLong } from "../core/question-limit.ts";
import { REPORT_FORMATS } from "../core/report-formats.ts";
import { sourcesSchema } from "../core/run-options.ts";
import { stripControlChars } from "../core/terminal-text.ts";
import { BUILTIN_STRATEGIES } from "../strategies/builtin.ts";
import { sourceFilterSchema } from "../tools/source-filter.ts";
import { webhookUrlsSchema } from "../webhooks/url-schema.ts";
import { batchTagSchema } from "./batch-articles.ts";

/** Names of the built-in research strategies (more can be registered; see `StrategyRegistry`). */
export const STRATEGIES: readonly string[] = BUILTIN_STRATEGIES.map((s) => s.name);
/** A research strategy's name. */
export type StrategyName = string;

/** A research request. */
export const researchRequestSchema = z.object({
  /** Terminal escape sequences and control characters (but tab and newline) are removed before it is stored. */
  query: z
    .string()
    .transform(stripControlChars)
    .pipe(
      z
        .string()
        .trim()
        .min(3, "the research question is empty or too short")
        .refine((q) => q.length <= MAX_QUESTION_CHARS, {
          error: (i) => questionTooLong((i.input as string).length),
        }),
    ),
  /** Default: graph when a model is configured, offline when only documents are given. */
  strategy: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, "expected a strategy name such as graph, minddr or offline")
    .optional(),
  /** The strategy's own options, checked against its options schema. */
  strategyOptions: z.record(z.string(), z.unknown()).optional(),
  /** Default: web; both when documents are given and web search is configured; local when only documents. */
  sources: sourcesSchema.optional(),
  /**
   * Which web sources the run may use: `domains` (allow list) and `excludeDomains` (deny list),
   * at most 20 host names each, a domain covering the hosts below it; `since` (YYYY-MM-DD, not in
   * the future) drops results known to be older. Enforced on every search provider and page
   * fetch (redirects included); local documents are not filtered. Default: the configuration's.
   */
  sourceFilter: sourceFilterSchema.optional(),
  /**
   * URLs called (signed, Standard Webhooks) when the run completes, fails, is cancelled or awaits
   * review of its plan, besides the configured ones; at most ten, each refused up front when it
   * names a private or loopback address (unless the private network is allowed). Needs a signing
   * secret (DOSSIER_WEBHOOK_SECRET). See docs/webhooks.md.
   */
  webhooks: webhookUrlsSchema.optional(),
  /** A folder of documents, indexed (incrementally) before the run. */
  docs: z.string().min(1).optional(),
  /** The corpus to search (default: named after the docs folder, else "default"). */
  corpus: z.string().min(1).optional(),
  language: z.string().min(2).default("auto"),
  /**
   * Each format once: two renderings of one format would write the same file. pdf needs chromium
   * and playwright-core on this machine (checked when the run is prepared).
   */
  formats: z
    .array(z.enum(REPORT_FORMATS))
    .min(1)
    .superRefine((formats, ctx) => {
      const twice = formats.find((f, i) => formats.indexOf(f) !== i);
      if (twice) ctx.addIssue({ code: "custom", message: `"${twice}" is given more than once` });
    })
    .default(["md"]),
  budget: budgetLimitsSchema.default({}),
  /** A file base (`report` → report.md, report.html) or a directory. Default `<home>/reports/<runId>`. */
  out: z.string().min(1).optional(),
  currentDate: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD")
    .refine(isCalendarDate, "not a calendar date (expected YYYY-MM-DD, e.g. 2026-03-31)")
    .optional(),
  concurrency: z.number().int().min(1).max(64).optional(),
  /** Model-driven steps per search agent (minddr; same as `strategyOptions.maxSteps`). */
  maxSteps: z.number().int().min(0).max(30).optional(),
  /**
   * The batch question the run answers (set by `dossier batch`): the run adds its article to
   * that articles file when it completes, also when it is resumed on its own.
   */
  batch: batchTagSchema.optional(),
  /**
   * Record every model call for training (`llm-call` events: messages, sampling, raw
   * completion, format errors; see llm/call-recorder.ts). Off by default.
   */
  recordCalls: z.boolean().optional(),
  /**
   * With `recordCalls`: record each call's token ids and log-probs from the inference server
   * (llm/token-capture.ts); a native protocol's structured answers are then asked in the prompt.
   */
  recordTokens: z.boolean().optional(),
  /** The sampling seed sent with every model call (rollouts use a distinct one per run). */
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
  /**
   * Claim verification after writing: `check` (default) the lexical check, no model call;
   * `judge` the judge model checks every cited claim (bounded batches, in the budget); `rewrite`
   * also has the writer revise or drop unsupported claims; `off` none.
   */
  verify: z.enum(VERIFY_MODES).default("check"),
  /**
   * Stop after the strategy's plan until the user approves, edits or rejects it (the run is
   * `awaiting-review` meanwhile; see `runs.review`).
   */
  reviewPlan: z.boolean().optional(),
  /** Minutes the plan waits for its review (default the configuration's, a day); then the run fails with REVIEW_TIMEOUT. */
  reviewTimeoutMinutes: z.number().positive().max(525_600, "at most a year (525600 minutes)").optional(),
  /** The rollout a run is (set by `dossier train rollouts`): its question and its index in the group. */
  rollout: z.object({ questionId: z.string().min(1), index: z.number().int().nonnegative() }).optional(),
});
/** True for a YYYY-MM-DD string naming a real day. */
function isCalendarDate(value: string): boolean {
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** A research request as given. */
export type ResearchRequest = z.input<typeof researchRequestSchema>;
/** A research request with defaults applied. */
export type ParsedResearchRequest = z.output<typeof researchRequestSchema>;
