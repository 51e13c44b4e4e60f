/**
 * One-off searches and page reads through a Dossier's tool gateway, as `dossier search` and
 * `dossier fetch` do them: shared by the HTTP API and the MCP tools. Both take a source filter
 * (the request's, else the configured default): a search drops results outside it (web and
 * papers; a local search takes none), a fetch refuses a URL or redirect outside it with
 * SOURCE_FILTERED before it is requested.
 */

import { DossierError } from "../core/errors.ts";
import { LlmClient } from "../llm/client.ts";
import type { Dossier } from "../runtime/dossier.ts";
import { DEFAULT_CORPUS, localSearchTool, openNamedCorpus } from "../tools/corpus/index.ts";
import { CRAWL_PROVIDER_POLICY, type CrawlResult, crawlPage } from "../tools/crawl/index.ts";
import { type FetchPageOptions, fetchPageTool, type PageContent } from "../tools/fetch/fetch-page.ts";
import { checkUrl } from "../tools/fetch/ssrf-guard.ts";
import { ToolGateway } from "../tools/gateway.ts";
import {
  academicBaseUrlsFromEnv,
  createAcademicProviders,
  isAcademicProviderName,
} from "../tools/search/academic-providers.ts";
import { plainPaper } from "../tools/search/academic-result.ts";
import { academicSearch } from "../tools/search/academic-search.ts";
import {
  createSearchProviders,
  SEARCH_PROVIDER_NAMES,
  searchBaseUrlsFromEnv,
} from "../tools/search/providers.ts";
import { webSearch } from "../tools/search/web-search.ts";
import {
  checkSourceUrl,
  domainRules,
  isActiveFilter,
  type SourceFilter,
  sourceFilterSchema,
} from "../tools/source-filter.ts";
import { toolFailure } from "../tools/tool-failure.ts";
import type { FetchBody, SearchBody } from "./schemas.ts";

/** What the tool calls need besides the Dossier. */
export interface ToolCallEnv {
  /** Environment variables (search endpoint overrides such as TAVILY_BASE_URL). */
  env?: Record<string, string | undefined>;
}

/**
 * A search's results: web results, papers (with `authors`, `doi?`, `pdfUrl?`; the snippet is
 * the abstract), or local hits with `path`, `anchor`, `text` and `score`.
 */
export interface SearchAnswer {
  provider: string;
  results: Record<string, unknown>[];
}

/** A page as read, or a goal-directed reading of it. */
export type FetchAnswer = ({ kind: "page" } & PageContent) | ({ kind: "reading" } & CrawlResult);

/**
 * The source filter a one-off search or fetch applies: the request's (checked; INPUT_INVALID
 * naming the field), else the configured default; undefined when it restricts nothing.
 */
export function requestSourceFilter(
  dossier: Pick<Dossier, "config">,
  given: SearchBody["sourceFilter"],
): SourceFilter | undefined {
  let filter: SourceFilter | undefined = dossier.config.sourceFilter;
  if (given !== undefined) {
    const parsed = sourceFilterSchema.safeParse(given);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new DossierError("INPUT_INVALID", `sourceFilter.${issue.path.join(".")}: ${issue.message}`);
    }
    filter = parsed.data;
  }
  return isActiveFilter(filter) ? filter : undefined;
}

/** Searches scholarly papers with one academic provider (arXiv, OpenAlex). */
async function searchPapers(
  dossier: Dossier,
  provider: string,
  body: SearchBody,
  env: ToolCallEnv,
): Promise<SearchAnswer> {
  if (body.corpus !== undefined || body.language !== undefined) {
    throw new DossierError("INPUT_INVALID", `corpus and language do not apply to provider ${provider}`);
  }
  const providers = createAcademicProviders(dossier.config, [provider], {
    providerBaseUrls: academicBaseUrlsFromEnv(env.env ?? {}),
  });
  const { query, topK, timeRange } = body;
  const sourceFilter = requestSourceFilter(dossier, body.sourceFilter);
  const outcome = await academicSearch(
    {
      query,
      ...(topK ? { topK } : {}),
      ...(timeRange ? { timeRange } : {}),
      ...(sourceFilter ? { sourceFilter } : {}),
    },
    { gateway: dossier.gateway, providers },
  );
  if (!outcome.ok) throw toolFailure(outcome.error, { provider: outcome.provider });
  return {
    provider,
    results: outcome.value.map(plainPaper),
  };
}

/**
 * Runs one search: the configured web providers in order, one provider (a web or an academic
 * one), or the local corpus.
 */
export async function searchWith(
  dossier: Dossier,
  body: SearchBody,
  env: ToolCallEnv = {},
): Promise<SearchAnswer> {
  const provider = body.provider?.toLowerCase();
  if (provider === "local") {
    if (body.timeRange !== undefined || body.language !== undefined || body.sourceFilter !== undefined) {
      throw new DossierError(
        "INPUT_INVALID",
        "timeRange, language and sourceFilter apply to web search only, not provider local",
      );
    }
    const name = body.corpus ?? DEFAULT_CORPUS;
    const index = openNamedCorpus(dossier.home, name);
    try {
      const search = localSearchTool(dossier.gateway, { index, corpus: name });
      const result = await search(body.query, body.topK !== undefined ? { topK: body.topK } : {});
      if (!result.ok) throw toolFailure(result.error, { provider: "corpus", corpus: name });
      return {
        provider: "local",
        results: result.value.map(({ path, anchor, headingPath, text, score }) => ({
          path,
          anchor,
          headingPath,
          text,
          score,
        })),
      };
    } finally {
      index.close();
    }
  }
  if (provider && isAcademicProviderName(provider)) return searchPapers(dossier, provider, body, env);
  if (body.corpus !== undefined)
    throw new DossierError("INPUT_INVALID", "corpus applies to provider local only");
  const names = provider ? [provider] : dossier.config.search;
  if (names.length === 0) {
    throw new DossierError(
      "PROVIDER_NOT_CONFIGURED",
      `no web search provider configured: set DOSSIER_SEARCH (one or more of ${SEARCH_PROVIDER_NAMES.join(", ")}) and the provider's key, or search the local corpus with provider local`,
    );
  }
  const { providers, missing } = createSearchProviders(dossier.config, names, {
    providerBaseUrls: searchBaseUrlsFromEnv(env.env ?? {}),
  });
  if (providers.length === 0) {
    const needs = missing.map((m) => `${m.name} needs ${m.setting}`).join("; ");
    throw new DossierError("PROVIDER_NOT_CONFIGURED", `search provider not configured: ${needs}`);
  }
  const { query, topK, timeRange, language } = body;
  const sourceFilter = requestSourceFilter(dossier, body.sourceFilter);
  const outcome = await webSearch(
    {
      query,
      ...(topK ? { topK } : {}),
      ...(timeRange ? { timeRange } : {}),
      ...(language ? { language } : {}),
      ...(sourceFilter ? { sourceFilter } : {}),
    },
    { gateway: dossier.gateway, providers },
  );
  if (!outcome.ok) throw toolFailure(outcome.error, { provider: outcome.provider });
  return {
    provider: outcome.provider ?? providers[0]!.name,
    results: outcome.value.map(({ title, url, snippet, publishedAt }) => ({
      title,
      url,
      snippet,
      ...(publishedAt ? { publishedAt } : {}),
    })),
  };
}

/**
 * Reads one page as clean text, or, with a goal, extracts verbatim evidence with the reader
 * model. A URL the source filter refuses is SOURCE_FILTERED before any request or model call; a
 * redirect it refuses is SOURCE_FILTERED before it is followed.
 */
export async function fetchWith(dossier: Dossier, body: FetchBody): Promise<FetchAnswer> {
  const allowPrivateNetwork = dossier.config.allowPrivateNetwork;
  checkUrl(body.url, { allowPrivateNetwork });
  const sourceFilter = domainRules(requestSourceFilter(dossier, body.sourceFilter));
  checkSourceUrl(sourceFilter, body.url);
  const fetchOptions: Omit<FetchPageOptions, "signal"> = {
    allowPrivateNetwork,
    ...(body.maxBytes === undefined ? {} : { maxBytes: body.maxBytes }),
    ...(sourceFilter ? { sourceFilter } : {}),
  };
  if (!body.goal) {
    const result = await fetchPageTool(dossier.gateway, body.url, fetchOptions);
    if (!result.ok) throw toolFailure(result.error);
    return { kind: "page", ...result.value };
  }
  dossier.models.forRole("reader");
  const llm = new LlmClient({ registry: dossier.models });
  const gateway = new ToolGateway({
    cache: dossier.store.cache,
    clock: dossier.clock,
    providers: { reader: CRAWL_PROVIDER_POLICY },
  });
  const result = await crawlPage({ llm, gateway, url: body.url, goal: body.goal, fetchOptions });
  if (!result.ok) throw toolFailure(result.error);
  return { kind: "reading", ...result.value };
}
