/**
 * `dossier search "<query>"`: one web search through the tool gateway (providers from
 * DOSSIER_SEARCH in fallback order, or one `--provider`), or a local-corpus search with
 * `--provider local`, or a search of papers with `--provider arxiv|openalex` (see
 * search-academic.ts). Prints a numbered list, or with `--json` a JSON array of
 * `{ title, url, snippet, publishedAt? }`. `--domains`, `--exclude-domains` and `--since` (as for
 * `dossier research`; default: the configured `sourceFilter`) filter web and paper results.
 */

import type { Command } from "commander";
import { DossierError } from "../../core/errors.ts";
import { terminalJson, terminalLine } from "../../core/terminal-text.ts";
import { ACADEMIC_PROVIDER_NAMES, isAcademicProviderName } from "../../tools/search/academic-providers.ts";
import {
  createSearchProviders,
  isSearchProviderName,
  SEARCH_PROVIDER_NAMES,
  searchBaseUrlsFromEnv,
} from "../../tools/search/providers.ts";
import { webSearch } from "../../tools/search/web-search.ts";
import { isActiveFilter, type SourceFilter } from "../../tools/source-filter.ts";
import { toolFailure } from "../../tools/tool-failure.ts";
import { type SearchRequest, type SearchResult, timeRangeSchema } from "../../tools/types.ts";
import type { CliIo } from "../io.ts";
import { openCliServices } from "../services.ts";
import { type GlobalFlags, loadCliConfig } from "../settings.ts";
import { commandEntry } from "./catalog.ts";
import { runAcademicSearch } from "./search-academic.ts";
import { runLocalSearch } from "./search-local.ts";

/** Flags of `dossier search` (with the global ones). */
export interface SearchFlags extends GlobalFlags {
  provider?: string;
  topK?: string;
  timeRange?: string;
  language?: string;
  corpus?: string;
  hybrid?: boolean;
  json?: boolean;
  /** Allowed domains, comma-separated. */
  domains?: string;
  /** Excluded domains, comma-separated. */
  excludeDomains?: string;
  /** Only results published since this day (YYYY-MM-DD). */
  since?: string;
}

/**
 * The source filter of `--domains`, `--exclude-domains` and `--since` (checked as for `dossier
 * research`: INPUT_INVALID naming the flag), else `fallback` (the configured one); undefined when
 * it restricts nothing. Shared by `dossier search`, `fetch` and `ask`.
 */
export async function sourceFilterOfFlags(
  flags: Pick<SearchFlags, "domains" | "excludeDomains" | "since">,
  fallback: SourceFilter | undefined,
): Promise<SourceFilter | undefined> {
  // research.ts (with the strategy registry) loads only when a filter flag is given.
  const given =
    flags.domains === undefined && flags.excludeDomains === undefined && flags.since === undefined
      ? undefined
      : (await import("./research-flags.ts")).sourceFilterFromFlags(flags);
  const filter = given ?? fallback;
  return isActiveFilter(filter) ? filter : undefined;
}

/** True when any source filter flag is given. */
const filterFlagGiven = (flags: SearchFlags) =>
  flags.domains !== undefined || flags.excludeDomains !== undefined || flags.since !== undefined;

const PROVIDER_CHOICES = [...SEARCH_PROVIDER_NAMES, ...ACADEMIC_PROVIDER_NAMES, "local"];

function invalid(message: string): DossierError {
  return new DossierError("INPUT_INVALID", message);
}

/** `--top-k` as a whole number from 1 to 50. */
function parseTopK(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1 || n > 50) {
    throw invalid(`--top-k must be a whole number from 1 to 50 (got "${value}")`);
  }
  return n;
}

/** The search request the flags describe. */
function webRequest(query: string, flags: SearchFlags): Partial<SearchRequest> & { query: string } {
  const request: Partial<SearchRequest> & { query: string } = { query };
  const topK = parseTopK(flags.topK);
  if (topK !== undefined) request.topK = topK;
  if (flags.timeRange !== undefined) {
    const range = timeRangeSchema.safeParse(flags.timeRange.toLowerCase());
    if (!range.success)
      throw invalid(`--time-range must be day, week, month or year (got "${flags.timeRange}")`);
    request.timeRange = range.data;
  }
  if (flags.language !== undefined) {
    if (!/^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i.test(flags.language)) {
      throw invalid(`--language must be a language code such as en or pt-BR (got "${flags.language}")`);
    }
    request.language = flags.language;
  }
  return request;
}

/** The numbered, human-readable list of results. */
export function formatResults(results: readonly SearchResult[]): string {
  if (results.length === 0) return "no results\n";
  const blocks = results.map((r, i) => {
    const lines = [`${i + 1}. ${terminalLine(r.title)}`, `   ${terminalLine(r.url)}`];
    if (r.snippet) lines.push(`   ${terminalLine(r.snippet)}`);
    if (r.publishedAt) lines.push(`   published ${terminalLine(r.publishedAt)}`);
    return lines.join("\n");
  });
  return `${blocks.join("\n\n")}\n`;
}

/** Results as printed by `--json`: only the documented fields. */
export function resultsJson(results: readonly SearchResult[]): string {
  const plain = results.map(({ title, url, snippet, publishedAt }) => ({
    title,
    url,
    snippet,
    ...(publishedAt ? { publishedAt } : {}),
  }));
  return `${terminalJson(plain)}\n`;
}

/** Runs `dossier search`. Throws a DossierError on a configuration problem or a failed search. */
export async function runSearch(io: CliIo, query: string, flags: SearchFlags): Promise<void> {
  if (query.trim() === "") throw invalid("the search query is empty");
  const provider = flags.provider?.trim().toLowerCase();
  if (provider !== undefined && !PROVIDER_CHOICES.includes(provider)) {
    throw invalid(`unknown provider "${flags.provider}" (expected one of ${PROVIDER_CHOICES.join(", ")})`);
  }
  if (provider === "local") {
    if (flags.timeRange !== undefined || flags.language !== undefined || filterFlagGiven(flags)) {
      throw invalid(
        "--time-range, --language, --domains, --exclude-domains and --since apply to web search only, not --provider local",
      );
    }
    const topK = parseTopK(flags.topK);
    const { config, home, model, debug, corpus, json, hybrid } = flags;
    await runLocalSearch(io, query, {
      config,
      home,
      model,
      debug,
      corpus,
      json,
      ...(hybrid ? { hybrid } : {}),
      ...(topK ? { topK } : {}),
    });
    return;
  }
  if (flags.corpus !== undefined) throw invalid("--corpus applies to --provider local only");
  if (flags.hybrid) throw invalid("--hybrid applies to --provider local only");
  const request = webRequest(query, flags);
  const { config } = loadCliConfig(io, flags);
  const sourceFilter = await sourceFilterOfFlags(flags, config.sourceFilter);
  if (sourceFilter) request.sourceFilter = sourceFilter;
  if (provider !== undefined && isAcademicProviderName(provider)) {
    await runAcademicSearch(io, provider, request, flags);
    return;
  }

  const names = provider && isSearchProviderName(provider) ? [provider] : config.search;
  if (names.length === 0) {
    throw new DossierError(
      "PROVIDER_NOT_CONFIGURED",
      `no web search provider configured: set DOSSIER_SEARCH (one or more of ${SEARCH_PROVIDER_NAMES.join(", ")}) and the provider's key (e.g. TAVILY_API_KEY, or SEARXNG_URL for searxng), or pass --provider`,
    );
  }
  const { providers, missing } = createSearchProviders(config, names, {
    providerBaseUrls: searchBaseUrlsFromEnv(io.env),
  });
  if (providers.length === 0) {
    const needs = missing.map((m) => `${m.name} needs ${m.setting}`).join("; ");
    throw new DossierError("PROVIDER_NOT_CONFIGURED", `search provider not configured: ${needs}`, {
      details: { missing },
    });
  }
  for (const m of missing) io.err(`dossier: warning: search provider ${m.name} skipped: set ${m.setting}\n`);

  const services = openCliServices(io, flags);
  let outcome: Awaited<ReturnType<typeof webSearch>>;
  try {
    outcome = await webSearch(request, { gateway: services.gateway, providers });
  } finally {
    services.close();
  }
  if (!outcome.ok) {
    throw toolFailure(outcome.error, { provider: outcome.provider });
  }
  io.out(flags.json ? resultsJson(outcome.value) : formatResults(outcome.value));
}

/** Registers `dossier search`. */
export function registerSearchCommand(program: Command, io: CliIo): void {
  program
    .command("search")
    .description(commandEntry("search").description)
    .argument("<query>", "what to search for")
    .option(
      "--provider <name>",
      `one provider: ${PROVIDER_CHOICES.join(", ")} (default: DOSSIER_SEARCH, in fallback order)`,
    )
    .option("--top-k <n>", "number of results, 1–50 (default 5)")
    .option("--time-range <range>", "only results from the last day, week, month or year")
    .option("--language <code>", "language of the wanted results (ISO 639-1, e.g. en)")
    .option(
      "--domains <list>",
      "only results on these domains and the hosts below them (comma list, at most 20; default: the configured filter)",
    )
    .option("--exclude-domains <list>", "never results on these domains (comma list, at most 20)")
    .option("--since <YYYY-MM-DD>", "drop results known to be published before this day")
    .option("--corpus <name>", "the local corpus to search (with --provider local)")
    .option(
      "--hybrid",
      "fuse BM25 with dense retrieval (with --provider local; the corpus must be indexed with --hybrid)",
    )
    .option(
      "--json",
      "print a JSON array of {title, url, snippet, publishedAt?} (arxiv, openalex: also authors, doi?, pdfUrl?)",
    )
    .action(async (query: string, _opts: unknown, cmd: Command) => {
      await runSearch(io, query, cmd.optsWithGlobals<SearchFlags>());
    });
}
