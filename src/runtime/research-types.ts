/**
 * The boundary types of a research run: what it needs around it (the environment), what it
 * returns, and a run prepared before its first model call. The calls are in research.ts.
 */

import type { Clock } from "../core/clock.ts";
import type { ClarifyCallback } from "../kit/router.ts";
import type { ModelRegistry } from "../llm/registry.ts";
import type { Store } from "../store/types.ts";
import type { StrategyRegistry } from "../strategies/registry.ts";
import type { ResearchOutcome, Sources, StrategyDefinition } from "../strategies/types.ts";
import type { CorpusIndex } from "../tools/corpus/corpus-index.ts";
import type { IndexSummary } from "../tools/corpus/types.ts";
import type { FetchPageOptions } from "../tools/fetch/fetch-page.ts";
import type { ProviderPolicy } from "../tools/gateway.ts";
import type { ProviderLimiter } from "../tools/provider-limiter.ts";
import type { AcademicProvider } from "../tools/search/academic-result.ts";
import type { SourceFilter } from "../tools/source-filter.ts";
import type { SearchProvider } from "../tools/types.ts";
import type { Config } from "./config.ts";
import type { ParsedResearchRequest } from "./research-request.ts";
import type { StartRunOptions } from "./run.ts";

/** What a research run needs around it. */
export interface ResearchEnvironment {
  config: Config;
  store: Store;
  registry: ModelRegistry;
  /** Environment variables (search endpoint overrides). */
  env?: Record<string, string | undefined>;
  cwd?: string;
  clock?: Clock;
  signal?: AbortSignal;
  /** Fetch for search providers (tests). */
  fetch?: typeof globalThis.fetch;
  /** Options of page fetches besides the guard flag and the source filter (tests: a resolver). */
  pageFetch?: Omit<FetchPageOptions, "signal" | "allowPrivateNetwork" | "sourceFilter">;
  runId?: string;
  /** Called with a one-line notice (e.g. offline mode chosen automatically). */
  onNotice?: (message: string) => void;
  /** Called with indexing progress of the docs folder. */
  onIndexed?: (summary: IndexSummary) => void;
  /** Asks the user clarifying questions (graph strategy, interactive use). */
  clarify?: ClarifyCallback;
  /** Tool policy over the gateway defaults (e.g. faster retries in tests). */
  toolPolicy?: Partial<ProviderPolicy>;
  /** Provider limits shared with other runs and processes (a worker's limiter on Redis). */
  limiter?: ProviderLimiter;
  /** The strategies to choose from (default: the built-in ones). */
  strategies?: StrategyRegistry;
  /** LLM client policy (retries, timeouts). */
  llm?: StartRunOptions<ResearchRunOutcome>["llm"];
}

/** The outcome of a research run. */
export interface ResearchRunOutcome extends ResearchOutcome {
  paths: string[];
}

/** A prepared research run. */
export interface PreparedResearch {
  request: ParsedResearchRequest;
  /** The run's id (given or new). */
  runId: string;
  /** The report files the run will write, checked writable. */
  paths: string[];
  /** The chosen strategy's name. */
  strategy: string;
  definition: StrategyDefinition<unknown>;
  /** The strategy's options, validated by its schema. */
  strategyOptions: unknown;
  sources: Sources;
  language: string;
  providers: SearchProvider[];
  /** Academic search providers (DOSSIER_ACADEMIC), for runs that may use the web. */
  academicProviders?: AcademicProvider[];
  corpus: { name: string; index: CorpusIndex } | null;
  notices: string[];
  /** The source filter of the run's web sources (the request's, else the configuration's). */
  sourceFilter?: SourceFilter;
  /** The URLs called when the run ends or awaits review (the request's and the configured ones). */
  webhooks: string[];
}
