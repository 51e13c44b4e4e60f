/**
 * The `crawl_page` tool (seed: SMTL): a page read with respect to a goal. The page is fetched
 * with `fetch_page`, long text is cut to a token budget keeping head and tail, the reader
 * model reports `{ rationale, evidence, summary }`, and every evidence excerpt that is not a
 * verbatim substring of the page text (after whitespace normalisation) is dropped and
 * counted. The whole read is one gateway call, so it never throws.
 */

import { DossierError, toDossierError } from "../../core/errors.ts";
import { DEFAULT_RETRY_POLICY } from "../../core/retry.ts";
import type { LlmClient } from "../../llm/client.ts";
import { generateStructured, type StructuredResult } from "../../llm/structured.ts";
import { type FetchPageOptions, fetchPageTool, type PageContentType } from "../fetch/fetch-page.ts";
import type { ProviderPolicy, ToolGateway } from "../gateway.ts";
import { domainRules } from "../source-filter.ts";
import { toolErrorCode } from "../tool-failure.ts";
import type { ToolResult } from "../types.ts";
import { CRAWL_SYSTEM_PROMPT, type CrawlAnswer, crawlAnswerSchema, crawlUserPrompt } from "./crawl-prompt.ts";
import { truncateHeadTail } from "./truncate.ts";
import { verifyExcerpts } from "./verbatim.ts";

/**
 * The page reader's sampling, in every run: temperature 0, so that what a page is taken to say
 * does not vary from run to run (Dossier's choice; no seed states the reader's sampling).
 */
export const READER_SAMPLING = { temperature: 0 } as const;

/** Default token budget of the page text shown to the reader. */
export const DEFAULT_MAX_PAGE_TOKENS = 12_000;

/**
 * A suggested gateway policy for provider `reader`: a model read can take minutes, and the
 * fetch and the model call inside it retry on their own, so the crawl itself is not retried.
 */
export const CRAWL_PROVIDER_POLICY: Partial<ProviderPolicy> = {
  timeoutMs: 10 * 60_000,
  retry: { ...DEFAULT_RETRY_POLICY, maxRetries: 0 },
};

/** Options of {@link crawlPage}. */
export interface CrawlPageOptions {
  llm: LlmClient;
  gateway: ToolGateway;
  url: string;
  /** What to look for on the page. */
  goal: string;
  /** Token budget of the page text shown to the model (default 12 000). */
  maxPageTokens?: number;
  /** Share of a cut page's kept text taken from its head (default 0.7; the rest from its tail). */
  headShare?: number;
  /** Options of the fetch (guard, limits, the run's source filter). */
  fetchOptions?: Omit<FetchPageOptions, "signal">;
}

/** A page read for a goal. */
export interface CrawlResult {
  url: string;
  finalUrl: string;
  title: string;
  contentType: PageContentType;
  rationale: string;
  /** Verbatim excerpts, as the page text writes them. */
  evidence: string[];
  summary: string;
  /** Excerpts the model gave that were not in the page, dropped. */
  dropped: number;
  /** True when the model saw only the head and tail of the page. */
  truncated: boolean;
}

/** Reads `url` for `goal` through the gateway as tool `crawl_page` (provider `reader`). */
export function crawlPage(options: CrawlPageOptions): Promise<ToolResult<CrawlResult>> {
  const { llm, gateway, url, goal } = options;
  const maxPageTokens = options.maxPageTokens ?? DEFAULT_MAX_PAGE_TOKENS;
  const { headShare } = options;
  const fetchOptions = options.fetchOptions ?? {};
  let model: string | undefined;
  try {
    model = llm.resolve("reader").name;
  } catch {
    model = undefined;
  }
  return gateway.call({
    tool: "crawl_page",
    provider: "reader",
    args: {
      url,
      goal,
      maxPageTokens,
      ...(headShare === undefined ? {} : { headShare }),
      ...(model ? { model } : {}),
      ...(fetchOptions.allowPrivateNetwork ? { allowPrivateNetwork: true } : {}),
      ...(domainRules(fetchOptions.sourceFilter)
        ? { sourceFilter: domainRules(fetchOptions.sourceFilter) }
        : {}),
    },
    run: () => readPage(llm, gateway, url, goal, { maxPageTokens, headShare }, fetchOptions),
    count: (result) => result.evidence.length,
    note: (result) =>
      `kept ${result.evidence.length} excerpt(s), dropped ${result.dropped} non-verbatim${result.truncated ? ", page truncated" : ""}`,
  });
}

async function readPage(
  llm: LlmClient,
  gateway: ToolGateway,
  url: string,
  goal: string,
  window: { maxPageTokens: number; headShare: number | undefined },
  fetchOptions: Omit<FetchPageOptions, "signal">,
): Promise<CrawlResult> {
  const fetched = await fetchPageTool(gateway, url, fetchOptions);
  if (!fetched.ok) {
    // The fetch has had its own retries: the crawl reports the failure as final.
    throw new DossierError(toolErrorCode(fetched.error.code), fetched.error.message, {
      retryable: false,
      details: { fetchCallId: fetched.callId, fetchRetryable: fetched.error.retryable },
    });
  }
  const page = fetched.value;
  const base = {
    url,
    finalUrl: page.finalUrl,
    title: page.title,
    contentType: page.contentType,
  };
  if (page.text.trim() === "") {
    return {
      ...base,
      rationale: `The page has no extractable text (${page.reason ?? "empty"}); nothing on it can be read for the goal.`,
      evidence: [],
      summary: "",
      dropped: 0,
      truncated: false,
    };
  }
  const shown = truncateHeadTail(page.text, window.maxPageTokens, window.headShare);
  let answer: StructuredResult<CrawlAnswer>;
  try {
    answer = await generateStructured(llm, {
      role: "reader",
      system: CRAWL_SYSTEM_PROMPT,
      prompt: crawlUserPrompt({
        goal,
        url: page.finalUrl,
        title: page.title,
        page: shown.text,
        truncated: shown.truncated,
      }),
      schema: crawlAnswerSchema,
      ...READER_SAMPLING,
    });
  } catch (error) {
    const e = toDossierError(error);
    throw new DossierError(e.code, e.message, {
      retryable: false,
      cause: e,
      details: { ...e.details, modelRetryable: e.retryable },
    });
  }
  const { kept, dropped } = verifyExcerpts(page.text, answer.value.evidence);
  return {
    ...base,
    rationale: answer.value.rationale.trim(),
    evidence: kept,
    summary: answer.value.summary.trim(),
    dropped,
    truncated: shown.truncated,
  };
}
