/**
 * `startResearch`: the library call behind `dossier research`. It checks the request and the
 * configuration before anything runs (a model, search providers, documents), indexes the
 * documents folder if one is given, then runs the chosen strategy as a recorded run whose
 * report is rendered, written to disk and announced with a report-ready event.
 */

import { basename, resolve } from "node:path";
import { isoDate, systemClock } from "../core/clock.ts";
import { DossierError } from "../core/errors.ts";
import { guessQueryLanguage } from "../core/language.ts";
import type { ReportFormat } from "../core/report-formats.ts";
import { checkFormatsAvailable } from "../render/format-support.ts";
import { createStrategyRegistry } from "../strategies/registry.ts";
import type { Sources } from "../strategies/types.ts";
import { telemetrySettings } from "../telemetry/settings.ts";
import { CorpusIndex } from "../tools/corpus/corpus-index.ts";
import { corpusPath } from "../tools/corpus/corpus-paths.ts";
import { type LocalSearchTool, localSearchTool } from "../tools/corpus/local-search.ts";
import { ToolGateway } from "../tools/gateway.ts";
import { academicBaseUrlsFromEnv, createAcademicProviders } from "../tools/search/academic-providers.ts";
import { createSearchProviders, searchBaseUrlsFromEnv } from "../tools/search/providers.ts";
import { describeSourceFilter, isActiveFilter, type SourceFilter } from "../tools/source-filter.ts";
import { webhooksForRun } from "../webhooks/run-webhooks.ts";
import { addingBatchArticle } from "./batch-articles.ts";
import { checkVerifyModels } from "./claim-verify.ts";
import { checkReportTargets, reportPaths, writeReportFiles } from "./report-files.ts";
import { reportStats } from "./report-stats.ts";
import { checkCostBudget, checkDocsFolder, parseStrategyOptions } from "./research-checks.ts";
import { type ResearchRequest, researchRequestSchema } from "./research-request.ts";
import { createResearchTools, READER_POLICY } from "./research-tools.ts";
import { type RunHandle, type StartRunOptions, startRun } from "./run.ts";
import { createRunId } from "./run-id.ts";
import { samplingOf } from "./strategy-sampling.ts";

export type { PreparedResearch, ResearchEnvironment, ResearchRunOutcome } from "./research-types.ts";

import type { PreparedResearch, ResearchEnvironment, ResearchRunOutcome } from "./research-types.ts";

/** The request checked against its schema; INPUT_INVALID naming the first problem. */
export function parseResearchRequest(input: ResearchRequest) {
  const parsed = researchRequestSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DossierError("INPUT_INVALID", `${issue.path.join(".") || "request"}: ${issue.message}`);
  }
  return parsed.data;
}

/** Validates the request against the configuration; indexes the docs folder. Runs nothing else. */
export async function prepareResearch(
  input: ResearchRequest,
  env: ResearchEnvironment,
): Promise<PreparedResearch> {
  const request = parseResearchRequest(input);
  // A switched-on telemetry with a bad endpoint or headers is refused before anything runs.
  telemetrySettings(env.config, env.env ?? {});
  const cwd = env.cwd ?? process.cwd();
  const home = resolve(cwd, env.config.home);
  const notices: string[] = [];
  const hasModel = env.registry.configured();
  const corpusName = request.corpus ?? (request.docs ? corpusNameOf(request.docs) : null);

  const strategies = env.strategies ?? createStrategyRegistry();
  let strategy = request.strategy;
  if (!strategy) {
    if (hasModel) strategy = "graph";
    else if (corpusName) {
      strategy = "offline";
      notices.push("No model configured: using the offline strategy over your documents.");
    } else {
      throw new DossierError(
        "MODEL_NOT_CONFIGURED",
        "no model configured: set DOSSIER_MODEL (e.g. DOSSIER_MODEL=openai:gpt-4o-mini with OPENAI_API_KEY, or ollama:qwen3:8b), or give --docs <dir> to research your own documents offline",
        {
          details: {
            apiMessage:
              "no model configured on the server (DOSSIER_MODEL): name an indexed corpus (corpus) to research it offline",
          },
        },
      );
    }
  }
  const definition = strategies.get(strategy);
  const strategyOptions = parseStrategyOptions(definition, request);
  if (request.reviewPlan && !definition.reviewsPlan?.(strategyOptions)) {
    throw new DossierError(
      "INPUT_INVALID",
      `the ${definition.name} strategy has no plan to review with these options (plan review works with graph, minddr, warp, mams, offline and smtl in its JSON protocol)`,
      { details: { strategy: definition.name } },
    );
  }
  if (definition.capabilities.needsModel) {
    if (!hasModel) {
      throw new DossierError(
        "MODEL_NOT_CONFIGURED",
        `the ${definition.name} strategy needs a model: set DOSSIER_MODEL (e.g. DOSSIER_MODEL=openai:gpt-4o-mini with OPENAI_API_KEY, or ollama:qwen3:8b)`,
      );
    }
    for (const role of definition.roles) env.registry.forRole(role);
    checkCostBudget(definition, env.registry, request.budget.maxCostUsd);
  }
  checkVerifyModels(request.verify, env.registry);
  // Refused webhooks, or webhooks without a signing secret, stop the run before it starts.
  const webhooks = await webhooksForRun(request.webhooks, env.config);
  const runId = env.runId ?? createRunId((env.clock ?? systemClock).now());
  const paths = reportPaths({
    ...(request.out ? { out: request.out } : {}),
    home: env.config.home,
    cwd,
    runId,
    formats: request.formats as ReportFormat[],
  });
  // A format this machine cannot produce (pdf without chromium) is refused before anything runs.
  checkFormatsAvailable(request.formats, pdfEnv(env));
  checkReportTargets(paths, request.out ? resolve(cwd, request.out) : undefined);

  const { providers, missing } = createSearchProviders(env.config, undefined, {
    providerBaseUrls: searchBaseUrlsFromEnv(env.env ?? {}),
  });
  for (const m of missing) notices.push(`Search provider ${m.name} skipped: set ${m.setting}.`);

  const web = definition.capabilities.web;
  let sources: Sources =
    request.sources ?? (corpusName ? (providers.length && web ? "both" : "local") : web ? "web" : "local");
  if (!web && sources !== "local-only") sources = "local";
  if ((sources === "web" || sources === "both") && providers.length === 0) {
    if (sources === "web") {
      if (missing.length > 0) {
        const needs = missing.map((m) => `${m.name} needs ${m.setting}`).join("; ");
        throw new DossierError(
          "PROVIDER_NOT_CONFIGURED",
          `no usable web search provider: ${needs} (set it, or research local documents with --docs <dir> --sources local)`,
          {
            details: {
              missing,
              apiMessage: `no usable web search provider on the server: ${needs}; or research an indexed corpus with corpus and sources "local"`,
            },
          },
        );
      }
      throw new DossierError(
        "PROVIDER_NOT_CONFIGURED",
        "no web search provider configured: set DOSSIER_SEARCH (e.g. DOSSIER_SEARCH=tavily with TAVILY_API_KEY, or searxng with SEARXNG_URL), or research local documents with --docs <dir> --sources local",
        {
          details: {
            apiMessage:
              'no web search provider configured on the server (DOSSIER_SEARCH): research an indexed corpus with corpus and sources "local"',
          },
        },
      );
    }
    notices.push("No web search provider configured: searching local documents only.");
    sources = "local";
  }
  if ((sources === "local" || sources === "local-only") && !corpusName) {
    throw new DossierError(
      "INPUT_INVALID",
      `--sources ${sources} needs documents: give --docs <dir> or --corpus <name>`,
      { details: { apiMessage: `sources "${sources}" needs documents: name an indexed corpus (corpus)` } },
    );
  }

  if (request.docs) checkDocsFolder(resolve(cwd, request.docs), request.docs);
  let corpus: PreparedResearch["corpus"] = null;
  if (corpusName && sources !== "web") {
    const path = corpusPath(home, corpusName);
    const index = CorpusIndex.open({ path, create: request.docs !== undefined });
    if (request.docs) {
      // The ingest pipeline (extractors, chunker, file walk) loads when a folder is first indexed.
      const { indexDirectory } = await import("../tools/corpus/ingest.ts");
      const summary = await indexDirectory({
        root: resolve(cwd, request.docs),
        index,
        corpus: corpusName,
        ...(env.signal ? { signal: env.signal } : {}),
      });
      env.onIndexed?.(summary);
    }
    if (index.stats().chunks === 0) {
      index.close();
      throw new DossierError(
        "INPUT_INVALID",
        `the corpus "${corpusName}" has no indexed text${request.docs ? ` (nothing readable in ${request.docs})` : ""}`,
      );
    }
    corpus = { name: corpusName, index };
  }

  const language = request.language === "auto" ? guessQueryLanguage(request.query) : request.language;
  const sourceFilter = webFilterOf(request.sourceFilter ?? env.config.sourceFilter, sources);
  if (sourceFilter) notices.push(describeSourceFilter(sourceFilter));
  return {
    runId,
    paths,
    request,
    strategy: definition.name,
    definition,
    strategyOptions,
    sources,
    language,
    providers: sources === "local" || sources === "local-only" ? [] : providers,
    academicProviders:
      sources === "local" || sources === "local-only"
        ? []
        : createAcademicProviders(env.config, undefined, {
            providerBaseUrls: academicBaseUrlsFromEnv(env.env ?? {}),
          }),
    corpus,
    notices,
    ...(sourceFilter ? { sourceFilter } : {}),
    webhooks,
  };
}

/** The source filter when the run uses the web and the filter restricts anything. */
function webFilterOf(filter: SourceFilter | undefined, sources: Sources): SourceFilter | undefined {
  return (sources === "web" || sources === "both") && isActiveFilter(filter) ? filter : undefined;
}

/** Starts a prepared research run. */
export function startResearch(
  prepared: PreparedResearch,
  env: ResearchEnvironment,
  resume?: StartRunOptions<ResearchRunOutcome>["resume"],
): RunHandle<ResearchRunOutcome> {
  const { request, strategy } = prepared;
  const options = {
    strategy,
    sources: prepared.sources,
    language: prepared.language,
    formats: request.formats,
    budget: request.budget,
    concurrency: request.concurrency ?? env.config.concurrency,
    strategyOptions: prepared.strategyOptions,
    // The date is fixed at the start, so a resumed run reasons with the same date (and replays).
    currentDate: request.currentDate ?? isoDate((env.clock ?? systemClock).now()),
    ...(prepared.corpus ? { corpus: prepared.corpus.name } : {}),
    reportPaths: prepared.paths,
    ...(prepared.webhooks.length ? { webhooks: prepared.webhooks } : {}),
    ...(request.batch ? { batch: request.batch } : {}),
    ...(request.recordCalls ? { recordCalls: true } : {}),
    ...(request.recordTokens ? { recordTokens: true } : {}),
    ...(request.seed === undefined ? {} : { seed: request.seed }),
    ...(request.rollout ? { rollout: request.rollout } : {}),
    ...(request.verify === "check" ? {} : { verify: request.verify }),
    ...(request.reviewPlan
      ? {
          reviewPlan: true,
          reviewTimeoutMinutes: request.reviewTimeoutMinutes ?? env.config.reviewTimeoutMinutes,
        }
      : {}),
    ...(prepared.sourceFilter ? { sourceFilter: prepared.sourceFilter } : {}),
  };
  const handle = startRun<ResearchRunOutcome>({
    store: env.store,
    registry: env.registry,
    query: request.query,
    options,
    ...(env.clock ? { clock: env.clock } : {}),
    ...(env.signal ? { signal: env.signal } : {}),
    runId: prepared.runId,
    ...(resume ? { resume } : {}),
    llm: { ...env.llm, ...samplingOf(prepared.definition, prepared.strategyOptions) },
    ...(env.config.baseUrl ? { modelEndpoint: env.config.baseUrl } : {}),
    telemetry: telemetrySettings(env.config, env.env ?? {}),
    strategy: async (ctx) => {
      for (const notice of prepared.notices) ctx.emit({ type: "warning", code: "NOTICE", message: notice });
      const gateway = new ToolGateway({
        cache: env.store.cache,
        clock: ctx.clock,
        emit: ctx.emit,
        budget: ctx.budget,
        signal: ctx.signal,
        journal: ctx.journal,
        ids: ctx.ids,
        ...(env.toolPolicy ? { defaults: env.toolPolicy } : {}),
        ...(env.limiter ? { limiter: env.limiter } : {}),
        providers: { reader: { ...READER_POLICY } },
      });
      const local: LocalSearchTool | undefined = prepared.corpus
        ? localSearchTool(gateway, { index: prepared.corpus.index, corpus: prepared.corpus.name })
        : undefined;
      const tools = createResearchTools({
        gateway,
        llm: ctx.llm,
        sources: prepared.sources,
        searchProviders: prepared.providers,
        ...(prepared.academicProviders?.length ? { academicProviders: prepared.academicProviders } : {}),
        ...(local ? { localSearch: local } : {}),
        allowPrivateNetwork: env.config.allowPrivateNetwork,
        ...(env.fetch ? { fetch: env.fetch } : {}),
        ...(prepared.sourceFilter ? { sourceFilter: prepared.sourceFilter } : {}),
        ...(env.pageFetch ? { fetchOptions: env.pageFetch } : {}),
      });
      const written = await prepared.definition.run(ctx, {
        options: prepared.strategyOptions,
        tools,
        language: prepared.language,
        ...(env.clarify ? { clarify: env.clarify } : {}),
      });
      // Each cited claim checked against its passages (eval/claims, loaded when a report is
      // first verified), before the report is final.
      const { verifyReport } = await import("../eval/claims/verify-report.ts");
      const verified = await verifyReport(ctx, written.report, request.verify);
      // The report states the filters its web sources went through.
      const notice = [verified.notice, describeSourceFilter(prepared.sourceFilter)].filter(Boolean).join(" ");
      const outcome = { ...written, report: notice ? { ...verified, notice } : verified };
      const paths = prepared.paths;
      await writeReportFiles(outcome.report, request.formats as ReportFormat[], paths, { env: pdfEnv(env) });
      ctx.emit({ type: "report-ready", formats: request.formats, paths, stats: reportStats(outcome.report) });
      return { ...outcome, paths };
    },
  });
  // (then, not finally: a run that could not be created — its id or version taken — rejects
  // through its handle only, never as an unhandled rejection here.)
  const closeCorpus = () => prepared.corpus?.index.close();
  void handle.done.then(closeCorpus, closeCorpus);
  // A batch's run adds its article itself, so a run resumed on its own lands there too.
  return request.batch ? addingBatchArticle(handle, request.batch) : handle;
}

/** Where the PDF renderer looks for chromium: the environment given, over the process's. */
function pdfEnv(env: ResearchEnvironment): Record<string, string | undefined> {
  return { ...process.env, ...env.env };
}

function corpusNameOf(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return name || "default";
}
