/**
 * The FACT pipeline (DeepResearch Bench `deepresearch_bench_fact.py`: extract → deduplicate
 * → scrape → validate → stat): triples are extracted from each report, statements grouped
 * and deduplicated per URL, each URL is fetched once through the injected `fetchText` (the
 * tool layer in the CLI), and one judge call per (report, URL) group decides each statement.
 * Groups run concurrently under a limit. A page that cannot be fetched, or a judge that gives
 * no valid answer, leaves the group with a `validate_error` — counted, never scored.
 */

import { toDossierError } from "../../core/errors.ts";
import type { LlmClient } from "../../llm/client.ts";
import { generateStructured } from "../../llm/structured.ts";
import type { ToolResult } from "../../tools/types.ts";
import { runConcurrently } from "../concurrency.ts";
import { promptLanguage } from "../race/language.ts";
import { dedupeByUrl } from "./dedupe.ts";
import { type Extraction, extractCitations } from "./extract.ts";
import { buildFactJudgePrompt, factJudgmentSchema } from "./judge-prompt.ts";
import type { FactReport, FactUrlGroup, FactValidated } from "./records.ts";
import { type FactStats, factStats, NO_REFERENCE } from "./stats.ts";

/** Reads one cited page: its text and, when known, its title. */
export type FetchText = (url: string) => Promise<ToolResult<{ text: string; title?: string }>>;

/** Default cap on the page text given to the judge. */
export const DEFAULT_MAX_REFERENCE_CHARS = 100_000;

/** Options of {@link runFact}. */
export interface FactRunOptions {
  /** Client whose `judge` role makes the calls. */
  llm: LlmClient;
  reports: readonly FactReport[];
  fetchText: FetchText;
  /** Groups in flight at once. Default 4. */
  concurrency?: number;
  /** Re-asks after an unparsable answer. Default 2. */
  maxRepairs?: number;
  /** Page text beyond this many characters is cut. Default 100 000. */
  maxReferenceChars?: number;
  signal?: AbortSignal;
  /** Called as each URL group is decided. */
  onGroup?: (done: number, total: number, error: string | null) => void;
}

/** What a run produced. */
export interface FactRunResult {
  /** One validations line per report, in input order. */
  records: FactValidated[];
  /** Extraction per report, in input order. */
  extractions: Extraction[];
  stats: FactStats;
  /** Judge answers rejected as unparsable. */
  formatErrors: number;
}

interface Job {
  report: number;
  url: string;
  facts: string[];
}

/** The text the judge reads for a fetched page: title, then text, cut at `max` characters. */
export function referenceText(value: { text: string; title?: string }, max: number): string {
  const full = value.title ? `${value.title}\n\n${value.text}` : value.text;
  return full.length > max ? `${full.slice(0, max)}\n[…]` : full;
}

/** Runs extraction, deduplication, fetching and judging, then the statistics. */
export async function runFact(options: FactRunOptions): Promise<FactRunResult> {
  const extractions = options.reports.map((r) => extractCitations(r.article));
  const records: FactValidated[] = options.reports.map((r, i) => ({
    id: r.id,
    ...(r.prompt === undefined ? {} : { prompt: r.prompt }),
    citations: extractions[i]!.triples,
    citations_deduped: {},
  }));
  const jobs: Job[] = [];
  extractions.forEach((ex, report) => {
    for (const [url, facts] of dedupeByUrl(ex.triples)) jobs.push({ report, url, facts });
  });

  const pages = new Map<string, ReturnType<FetchText>>();
  const fetchOnce = (url: string) => {
    let page = pages.get(url);
    if (!page) {
      page = options.fetchText(url);
      pages.set(url, page);
    }
    return page;
  };
  const maxRepairs = options.maxRepairs ?? 2;
  const max = options.maxReferenceChars ?? DEFAULT_MAX_REFERENCE_CHARS;
  let formatErrors = 0;

  const decide = async (job: Job): Promise<FactUrlGroup> => {
    const page = await fetchOnce(job.url).catch((error: unknown) => {
      const e = toDossierError(error);
      return { ok: false as const, error: { code: e.code, message: e.message, retryable: e.retryable } };
    });
    if (!page.ok) {
      return {
        facts: job.facts,
        url_content: null,
        validate_res: [],
        validate_error: `${NO_REFERENCE}: ${page.error.code}: ${page.error.message}`,
      };
    }
    const content = referenceText(page.value, max);
    const report = options.reports[job.report]!;
    const language = promptLanguage(report.prompt ?? report.article.slice(0, 2000), report.language);
    const { system, prompt } = buildFactJudgePrompt(language, content, job.facts);
    try {
      const r = await generateStructured(options.llm, {
        role: "judge",
        system,
        prompt,
        schema: factJudgmentSchema(job.facts.length),
        maxRepairs,
      });
      formatErrors += r.formatErrors;
      const verdicts = [...r.value].sort((a, b) => a.idx - b.idx);
      return {
        facts: job.facts,
        url_content: content,
        validate_res: verdicts.map((v) => ({ idx: v.idx - 1, result: v.result })),
        validate_error: null,
      };
    } catch (error) {
      const e = toDossierError(error);
      if (e.code === "CANCELLED") throw e;
      if (e.code === "STRUCTURED_OUTPUT_FAILED") formatErrors += maxRepairs + 1;
      return {
        facts: job.facts,
        url_content: content,
        validate_res: [],
        validate_error: `judge failed: ${e.message}`,
      };
    }
  };

  const outcomes = await runConcurrently(jobs, decide, {
    concurrency: options.concurrency ?? 4,
    signal: options.signal,
    onSettled: (outcome, _job, _i, progress) =>
      options.onGroup?.(
        progress.done,
        progress.total,
        outcome.ok ? outcome.value.validate_error : outcome.error.message,
      ),
  });
  outcomes.forEach((outcome, i) => {
    const job = jobs[i]!;
    records[job.report]!.citations_deduped[job.url] = outcome.ok
      ? outcome.value
      : {
          facts: job.facts,
          url_content: null,
          validate_res: [],
          validate_error: `judge failed: ${outcome.error.message}`,
        };
  });
  return { records, extractions, stats: factStats(records), formatErrors };
}
