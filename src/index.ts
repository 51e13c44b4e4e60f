/**
 * Dossier as a library. The main entry points:
 *
 * - `research(question, options)`: one call that runs a research job and returns its report;
 * - `ask(question, options)`: one call that answers a deep-search question with a short,
 *   verified answer, its citations and the passages behind them (strategy `smtl`);
 * - `createDossier(options)`: the composition root every interface works through — research
 *   runs with handles (events, cancel), estimates, stored runs, the strategy registry;
 * - `StrategyDefinition` + `createDossier({ strategies })`: add your own research strategy;
 * - `startServer({ dossier })`: the HTTP API (runs, SSE events, reports, MCP) with token auth;
 *   `serveMcpStdio({ dossier })`: the MCP server over stdio (both load their modules when
 *   called; the rest of the server and MCP surface is in `dossier/server` and `dossier/mcp`);
 * - `prepareResearch` + `startResearch`: the two halves of a research job, for finer control;
 * - `loadConfig`, `registryFromConfig`, `openSqliteStore`: the pieces a job needs;
 * - `startRun`: run your own strategy as a recorded run with budgets, events and resume keys;
 * - `renderReportFile(doc, format)`: a report in any format (md, html, json as text; docx, pdf as
 *   bytes; their renderers load on first use), `readReportFile(dossier.runs, runId, format)`: a
 *   stored run's report in any format, `documentOfBundle(json)`: the document of a report.json;
 * - the core domain (citation pass, outline, plan graph, budget ledger, events, errors);
 * - the tool layer (gateway, search providers, page fetching, local corpus);
 * - the evaluation toolkit in `dossier/eval`.
 *
 * Importing this module loads no heavy dependency: jsdom, the AI SDK's providers, Hono, the MCP
 * SDK, unpdf, sqlite-vec, marked, franc-min, p-queue and jsonrepair are loaded by the functions
 * that use them, on their first call, and so are the modules that run a refresh, a follow-up,
 * claim verification, folder indexing, page fetching and PDF rendering (src/library-weight.test.ts
 * pins both lists).
 */

// First: an unsupported Node is refused with a clear message, not a module resolution error.
import "./core/node-check.ts";

export * from "./core/index.ts";
export { indexDirectory, serveMcpStdio, startServer } from "./entries/lazy.ts";
export type { ResearchTools } from "./kit/research-tools.ts";
export type { ClarifyCallback } from "./kit/router.ts";
export type { RunContext } from "./kit/run-context.ts";
export { type GenerateRequest, type GenerateResult, LlmClient } from "./llm/client.ts";
export { PROVIDERS, parseModelSpec, ROLES, type Role } from "./llm/model-spec.ts";
export { createModelRegistry, type ModelRegistry, type ModelRegistryOptions } from "./llm/registry.ts";
export { generateStructured, type StructuredRequest, type StructuredResult } from "./llm/structured.ts";
export type { McpContext } from "./mcp/context.ts";
export type { McpStdioOptions, McpStdioServer } from "./mcp/stdio.ts";
export {
  formatUnavailable,
  type RemoteImages,
  type RenderFileOptions,
  type RenderOptions,
  type ReportFormat,
  renderHtml,
  renderJsonBundle,
  renderMarkdown,
  renderReport,
  renderReportFile,
} from "./render/index.ts";
export {
  type AskAboutOptions,
  askAbout,
  type FollowUpResult,
  type FollowUpSearch,
} from "./runtime/ask-about.ts";
export { type AskCallOptions, ask } from "./runtime/ask-api.ts";
export type { AskCitation, AskEvidence, AskOptions, AskResult } from "./runtime/ask-run.ts";
export {
  type BatchItem,
  type BatchOptions,
  type BatchProgress,
  type BatchQuestion,
  type BatchResult,
  formatBatchSummary,
  parseQuestions,
  readQuestions,
  runBatch,
} from "./runtime/batch.ts";
export { type Config, configSchema } from "./runtime/config.ts";
export type { ConfigOverrides } from "./runtime/config-load.ts";
export { type LoadedConfig, loadConfig } from "./runtime/config-load.ts";
export { createDossier, type Dossier, type DossierOptions } from "./runtime/dossier.ts";
export type { ResearchEstimate } from "./runtime/estimate.ts";
export { estimateResearch, formatEstimate } from "./runtime/estimate.ts";
export { registryFromConfig } from "./runtime/models.ts";
export {
  type RefreshOptions,
  type RefreshResult,
  type RefreshStart,
  refresh,
  refreshMessage,
  startRefresh,
} from "./runtime/refresh.ts";
export type { ReportDiff } from "./runtime/refresh-diff.ts";
export { estimateRefresh, formatRefreshEstimate, type RefreshEstimate } from "./runtime/refresh-estimate.ts";
export { versionsOf } from "./runtime/refresh-versions.ts";
export { reportStats } from "./runtime/report-stats.ts";
export { prepareResearch, type ResearchEnvironment, startResearch } from "./runtime/research.ts";
export { type ResearchCallOptions, research } from "./runtime/research-api.ts";
export type { ResearchHandle, ResearchOptions, ResearchResult } from "./runtime/research-handle.ts";
export { type ResearchRequest, STRATEGIES, type StrategyName } from "./runtime/research-request.ts";
export { type RunHandle, type RunResult, type Strategy, startRun } from "./runtime/run.ts";
export type { RunsApi } from "./runtime/runs-api.ts";
export type { RunningServer, ServerApp, ServerAppOptions, StartServerOptions } from "./server/index.ts";
export { documentOfBundle, readReportFile } from "./server/reports.ts";
export type { RunManager } from "./server/run-manager.ts";
export { openSqliteStore } from "./store/sqlite-store.ts";
export type { Cache, EventLog, RunStore, Store } from "./store/types.ts";
export { graphStrategy, minddrStrategy, offlineStrategy } from "./strategies/builtin.ts";
export { mamsStrategy } from "./strategies/mams/definition.ts";
export { createStrategyRegistry, StrategyRegistry } from "./strategies/registry.ts";
export type { AskOutcome, SmtlFigures } from "./strategies/smtl/answer.ts";
export { smtlStrategy } from "./strategies/smtl/definition.ts";
export type {
  EstimatedCall,
  ResearchOutcome,
  Sources,
  StopReason,
  StrategyCapabilities,
  StrategyDefinition,
  StrategyEstimate,
  StrategyRunInput,
} from "./strategies/types.ts";
export { CorpusIndex } from "./tools/corpus/corpus-index.ts";
export { localSearch, localSearchTool } from "./tools/corpus/local-search.ts";
export { crawlPage } from "./tools/crawl/crawl-page.ts";
export { fetchPage, fetchPageTool } from "./tools/fetch/fetch-page.ts";
export { type GatewayOptions, type ProviderPolicy, ToolGateway } from "./tools/gateway.ts";
export { createAcademicProviders } from "./tools/search/academic-providers.ts";
export type { AcademicProvider, AcademicResult } from "./tools/search/academic-result.ts";
export { academicSearch } from "./tools/search/academic-search.ts";
export { createSearchProviders } from "./tools/search/providers.ts";
export { webSearch, webSearchMany } from "./tools/search/web-search.ts";
export type { LocalSearchResult, SearchProvider, SearchResult, ToolResult } from "./tools/types.ts";
