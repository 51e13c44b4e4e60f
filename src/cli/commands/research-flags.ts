/**
 * The flags of `dossier research` (shared by `ask`, `refresh`, `batch` and `train rollouts`) and
 * the research request they make: every value checked before the first model call, a bad one
 * refused with INPUT_INVALID naming its flag.
 */

import type { z } from "zod";
import type { BudgetLimits } from "../../core/budget.ts";
import { VERIFY_MODES, type VerifyMode } from "../../core/claim-verdicts.ts";
import { DossierError } from "../../core/errors.ts";
import { isReportFormat, type ReportFormat, reportFormatList } from "../../core/report-formats.ts";
import type { ResearchRequest } from "../../runtime/research-request.ts";
import { type SourceFilter, sourceFilterSchema } from "../../tools/source-filter.ts";
import type { GlobalFlags } from "../settings.ts";
import { optionFlagValues, refuseTwice } from "./strategy-option-flags.ts";

/** Flags of `dossier research`. */
export interface ResearchFlags extends GlobalFlags {
  strategy?: string;
  /** URLs called when the run ends or awaits review (repeatable). */
  webhook?: string[];
  sources?: string;
  docs?: string;
  corpus?: string;
  maxTokens?: string;
  maxToolCalls?: string;
  maxMinutes?: string;
  maxCost?: string;
  maxIterations?: string;
  maxSteps?: string;
  maxExpansions?: string;
  forceExpand?: string;
  mode?: string;
  language?: string;
  out?: string;
  format?: string;
  date?: string;
  concurrency?: string;
  estimate?: boolean;
  json?: boolean;
  recordCalls?: boolean;
  events?: string;
  quiet?: boolean;
  interactive?: boolean;
  verify?: string;
  /** `key=value` strategy options (see strategy-option-flags.ts). */
  option?: string[];
  /** Allowed domains, comma-separated. */
  domains?: string;
  /** Excluded domains, comma-separated. */
  excludeDomains?: string;
  /** Only sources published since this day (YYYY-MM-DD). */
  since?: string;
  /** Stop after the strategy's plan for review. */
  reviewPlan?: boolean;
  /** Minutes the plan waits for its review. */
  reviewTimeout?: string;
}

const FILTER_FLAGS: Readonly<Record<string, string>> = {
  domains: "--domains",
  excludeDomains: "--exclude-domains",
  since: "--since",
};

/**
 * The source filter of `--domains`, `--exclude-domains` and `--since`, checked (at most 20 host
 * names a list, none in both, a date not in the future): INPUT_INVALID naming the flag.
 */
export function sourceFilterFromFlags(flags: ResearchFlags): SourceFilter | undefined {
  const list = (value: string | undefined) =>
    value === undefined
      ? undefined
      : value
          .split(",")
          .map((d) => d.trim())
          .filter(Boolean);
  const domains = list(flags.domains);
  const excludeDomains = list(flags.excludeDomains);
  if (domains === undefined && excludeDomains === undefined && flags.since === undefined) return undefined;
  const parsed = sourceFilterSchema.safeParse({
    ...(domains ? { domains } : {}),
    ...(excludeDomains ? { excludeDomains } : {}),
    ...(flags.since === undefined ? {} : { since: flags.since }),
  });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const flag = FILTER_FLAGS[String(issue.path[0])];
  throw new DossierError("INPUT_INVALID", flag ? `${flag}: ${issue.message}` : issue.message);
}

function number(flag: string, value: string | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new DossierError(
      "INPUT_INVALID",
      `${flag} must be a positive ${integer ? "integer" : "number"}, got "${value}"`,
    );
  }
  return n;
}

/** The budget from the configuration's defaults and the flags. */
export function budgetFromFlags(defaults: BudgetLimits, flags: ResearchFlags): BudgetLimits {
  const minutes = number("--max-minutes", flags.maxMinutes, false);
  const b: BudgetLimits = { ...defaults };
  const set = <K extends keyof BudgetLimits>(key: K, value: BudgetLimits[K] | undefined) => {
    if (value !== undefined) b[key] = value;
  };
  set("maxTokens", number("--max-tokens", flags.maxTokens, true));
  set("maxToolCalls", number("--max-tool-calls", flags.maxToolCalls, true));
  set("maxWallMs", minutes === undefined ? undefined : Math.round(minutes * 60_000));
  set("maxCostUsd", number("--max-cost", flags.maxCost, false));
  set("maxIterations", number("--max-iterations", flags.maxIterations, true));
  return b;
}

/**
 * The request from the question and flags. `optionsSchema` (the chosen strategy's) keeps the
 * `--option` values of its text options text; the run checks them all against it.
 */
export function requestFromFlags(
  query: string,
  flags: ResearchFlags,
  budget: BudgetLimits,
  language?: string,
  optionsSchema?: z.ZodType,
): ResearchRequest {
  const formats = (flags.format ?? "md")
    .split(",")
    .map((f) => f.trim().toLowerCase())
    .filter(Boolean);
  for (const f of formats) {
    if (!isReportFormat(f))
      throw new DossierError("INPUT_INVALID", `--format takes ${reportFormatList("and")}, got "${f}"`);
  }
  const twice = formats.find((f, i) => formats.indexOf(f) !== i);
  if (twice) throw new DossierError("INPUT_INVALID", `--format: "${twice}" is given more than once`);
  if (flags.sources && !["web", "local", "both", "local-only"].includes(flags.sources)) {
    throw new DossierError(
      "INPUT_INVALID",
      `--sources must be web, local, both or local-only, got "${flags.sources}"`,
    );
  }
  if (flags.verify !== undefined && !(VERIFY_MODES as readonly string[]).includes(flags.verify)) {
    throw new DossierError(
      "INPUT_INVALID",
      `--verify must be off, check, judge or rewrite, got "${flags.verify}"`,
    );
  }
  const concurrency = number("--concurrency", flags.concurrency, true);
  const reviewTimeout = number("--review-timeout", flags.reviewTimeout, false);
  if (reviewTimeout !== undefined && !flags.reviewPlan)
    throw new DossierError("INPUT_INVALID", "--review-timeout goes with --review-plan");
  const sourceFilter = sourceFilterFromFlags(flags);
  const maxSteps = flags.maxSteps === undefined ? undefined : Number(flags.maxSteps);
  const byOption = optionFlagValues(flags.option ?? [], optionsSchema);
  refuseTwice(
    [
      ["--max-steps", "maxSteps", flags.maxSteps],
      ["--max-expansions", "maxExpansions", flags.maxExpansions],
      ["--force-expand", "forceExpand", flags.forceExpand],
      ["--mode", "mode", flags.mode],
    ],
    byOption,
  );
  const strategyOptions = {
    ...(flags.maxExpansions === undefined ? {} : { maxExpansions: Number(flags.maxExpansions) }),
    ...(flags.forceExpand === undefined ? {} : { forceExpand: Number(flags.forceExpand) }),
    ...(flags.mode === undefined ? {} : { mode: flags.mode }),
    ...byOption,
  };
  return {
    query,
    ...(flags.strategy ? { strategy: flags.strategy } : {}),
    ...(flags.sources ? { sources: flags.sources as ResearchRequest["sources"] } : {}),
    ...(sourceFilter ? { sourceFilter } : {}),
    ...(flags.docs ? { docs: flags.docs } : {}),
    ...(flags.corpus ? { corpus: flags.corpus } : {}),
    language: flags.language ?? language ?? "auto",
    formats: formats as ReportFormat[],
    budget,
    ...(flags.out ? { out: flags.out } : {}),
    ...(flags.date ? { currentDate: flags.date } : {}),
    ...(concurrency ? { concurrency } : {}),
    ...(maxSteps !== undefined ? { maxSteps } : {}),
    ...(Object.keys(strategyOptions).length ? { strategyOptions } : {}),
    ...(flags.recordCalls ? { recordCalls: true } : {}),
    ...(flags.verify ? { verify: flags.verify as VerifyMode } : {}),
    ...(flags.webhook?.length ? { webhooks: flags.webhook } : {}),
    ...(flags.reviewPlan ? { reviewPlan: true } : {}),
    ...(reviewTimeout === undefined ? {} : { reviewTimeoutMinutes: reviewTimeout }),
  };
}
