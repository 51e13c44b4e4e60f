/**
 * Dossier as a library. The main entry points:
 *
 * - `prepareResearch` + `startResearch`: run a research job (what `dossier research` does);
 * - `loadConfig`, `registryFromConfig`, `openSqliteStore`: the pieces a job needs;
 * - `startRun`: run your own strategy as a recorded run with budgets, events and resume keys;
 * - the core domain (citation pass, outline, plan graph, budget ledger, events, errors);
 * - the tool layer (gateway, search providers, page fetching, local corpus);
 * - the evaluation toolkit under `eval`.
 */

export type { ClarifyCallback } from "./agents/router.ts";
export type { RunContext } from "./agents/run-context.ts";
export * from "./core/index.ts";
export * as evaluation from "./eval/public.ts";
export { type GenerateRequest, type GenerateResult, LlmClient } from "./llm/client.ts";
export { PROVIDERS, parseModelSpec, ROLES, type Role } from "./llm/model-spec.ts";
export { createModelRegistry, type ModelRegistry, type ModelRegistryOptions } from "./llm/registry.ts";
export { generateStructured, type StructuredRequest, type StructuredResult } from "./llm/structured.ts";
export {
  type ReportFormat,
  renderHtml,
  renderJsonBundle,
  renderMarkdown,
  renderReport,
} from "./render/index.ts";
export { type Config, configSchema } from "./runtime/config.ts";
export { type LoadedConfig, loadConfig } from "./runtime/config-load.ts";
export { estimateResearch, formatEstimate } from "./runtime/estimate.ts";
export { registryFromConfig } from "./runtime/models.ts";
export { prepareResearch, type ResearchEnvironment, reportStats, startResearch } from "./runtime/research.ts";
export { type ResearchRequest, STRATEGIES, type StrategyName } from "./runtime/research-request.ts";
export { type RunHandle, type RunResult, type Strategy, startRun } from "./runtime/run.ts";
export { openSqliteStore } from "./store/sqlite-store.ts";
export type { Cache, EventLog, RunStore, Store } from "./store/types.ts";
export { CorpusIndex } from "./tools/corpus/corpus-index.ts";
export { indexDirectory } from "./tools/corpus/ingest.ts";
export { localSearch, localSearchTool } from "./tools/corpus/local-search.ts";
export { crawlPage } from "./tools/crawl/crawl-page.ts";
export { fetchPage, fetchPageTool } from "./tools/fetch/fetch-page.ts";
export { type GatewayOptions, type ProviderPolicy, ToolGateway } from "./tools/gateway.ts";
export { createSearchProviders } from "./tools/search/providers.ts";
export { webSearch, webSearchMany } from "./tools/search/web-search.ts";
export type { LocalSearchResult, SearchProvider, SearchResult, ToolResult } from "./tools/types.ts";
