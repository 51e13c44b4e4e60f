/**
 * The composition root: `createDossier()` loads the configuration once and builds the store,
 * the model registry, the strategy registry and the tool gateway that every interface — the
 * CLI, the library API, the server, MCP and batch runs — works through. It keeps a registry of
 * the runs it has under way, so any of them can be cancelled by id.
 */

import { accessSync, constants, existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { LanguageModel } from "ai";
import type { Clock } from "../core/clock.ts";
import { systemClock } from "../core/clock.ts";
import { DossierError } from "../core/errors.ts";
import type { LlmClientOptions } from "../llm/client.ts";
import type { ModelRegistry } from "../llm/registry.ts";
import { lazyStore } from "../store/lazy-store.ts";
import { makeDirs } from "../store/make-dirs.ts";
import { openStore } from "../store/open-store.ts";
import { DATABASE_FILE } from "../store/sqlite-store.ts";
import type { Store } from "../store/types.ts";
import { createStrategyRegistry, type StrategyRegistry } from "../strategies/registry.ts";
import type { StrategyDefinition } from "../strategies/types.ts";
import { type ProviderPolicy, ToolGateway } from "../tools/gateway.ts";
import type { ProviderLimiter } from "../tools/provider-limiter.ts";
import type { Deliverer } from "../webhooks/deliverer.ts";
import { createWebhooks } from "../webhooks/webhooks.ts";
import { askAbout, registerFollowUp } from "./ask-about.ts";
import { type AskOptions, type AskResult, askWith } from "./ask-run.ts";
import type { Config } from "./config.ts";
import { type ConfigOverrides, type LoadedConfig, loadConfig, type SettingOrigin } from "./config-load.ts";
import { estimateResearch, type ResearchEstimate } from "./estimate.ts";
import { limitModels } from "./limited-models.ts";
import { registryFromConfig } from "./models.ts";
import { type RefreshOptions, type RefreshResult, refresh, registerRefresh } from "./refresh.ts";
import { prepareResearch } from "./research.ts";
import { estimateInput } from "./research-estimate.ts";
import {
  type ResearchDeps,
  type ResearchHandle,
  type ResearchOptions,
  resumeResearchHandle,
  startResearchHandle,
} from "./research-handle.ts";
import { requestOfRun } from "./resume.ts";
import { markInterruptedRuns } from "./run-liveness.ts";
import { type RunsApi, runsApi } from "./runs-api.ts";

/** Options of {@link createDossier}. Everything is optional; defaults read the environment. */
export interface DossierOptions {
  /** Settings over the configuration file and the environment (same shape as `dossier.config.json`). */
  config?: ConfigOverrides;
  /** A configuration file to read (default `./dossier.config.json` when present). */
  configFile?: string;
  /** Environment variables (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Working directory relative paths resolve against (default `process.cwd()`). */
  cwd?: string;
  /** The fetch search providers and models use (default the global fetch). */
  fetch?: typeof globalThis.fetch;
  clock?: Clock;
  /**
   * A store to use instead of the configured one — the PostgreSQL database of `databaseUrl`, else
   * the SQLite store under the data directory (it is not closed).
   */
  store?: Store;
  /** Ready-made AI SDK models by `provider:model` name (tests, custom providers). */
  models?: Readonly<Record<string, LanguageModel>>;
  /** Strategies to register besides the built-in ones. */
  strategies?: readonly StrategyDefinition<never>[];
  /** Gateway policy over the defaults (e.g. faster retries). */
  toolPolicy?: Partial<ProviderPolicy>;
  /** LLM client policy (retries, timeouts). */
  llm?: Pick<LlmClientOptions, "retry" | "timeoutMs" | "random" | "defaultMaxOutputTokens">;
  /** Setting origins of a command line, layered on top (used by the CLI). */
  flags?: Record<string, SettingOrigin>;
  /**
   * Provider limits shared with other processes (a worker's limiter on Redis): search calls and
   * model requests of every run hold its slots. A function is given the loaded configuration
   * (the limiter may depend on its `redisUrl`). It is not closed with the Dossier.
   */
  limiter?: ProviderLimiter | ((config: Config) => ProviderLimiter | undefined);
}

/** A configured Dossier: the one object every interface works through. */
export interface Dossier {
  readonly config: Config;
  /** The configuration with the origin of each setting. */
  readonly loaded: LoadedConfig;
  /** The absolute data directory. */
  readonly home: string;
  readonly store: Store;
  /**
   * The webhook deliverer: a run's first attempts start when its status is stored; `start()`
   * also polls the outbox for retries and for deliveries other processes left (serve, worker).
   */
  readonly webhooks: Deliverer;
  readonly models: ModelRegistry;
  readonly strategies: StrategyRegistry;
  /** The shared tool gateway for one-off searches and fetches (runs build their own). */
  readonly gateway: ToolGateway;
  readonly clock: Clock;
  /** Starts a research run; see {@link ResearchHandle}. */
  research(question: string, options?: ResearchOptions): ResearchHandle;
  /**
   * Answers a deep-search question (the `smtl` strategy by default): a short answer with its
   * evidence. With `about: runId`, a follow-up question about that finished run (see `askAbout`).
   */
  ask(question: string, options?: AskOptions): Promise<AskResult>;
  /** The dry estimate of a research run; runs nothing. */
  estimate(question: string, options?: ResearchOptions): ResearchEstimate;
  /**
   * Writes a new version of a finished run's report: cited pages fetched again, only the sections
   * whose evidence changed rewritten, a diff beside the report (see `refresh`).
   */
  refresh(runId: string, options?: RefreshOptions): Promise<RefreshResult>;
  /** Stored runs, their events, and the runs under way. */
  readonly runs: RunsApi;
  /** Cancels the runs under way, waits for them to be recorded, and closes the store. */
  close(): Promise<void>;
}

/** Builds a Dossier from the configuration file, the environment and `options`. */
export function createDossier(options: DossierOptions = {}): Dossier {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const loaded = loadConfig({
    env,
    cwd,
    ...(options.configFile ? { configFile: options.configFile } : {}),
    ...(options.flags ? { flags: options.flags } : {}),
    ...(options.config ? { overrides: options.config } : {}),
  });
  const config = loaded.config;
  const home = resolve(cwd, config.home);
  const homeLabel = loaded.origins.home?.label ?? "home";
  if (!options.store) checkHome(home, homeLabel);
  const clock = options.clock ?? systemClock;
  const ownStore = options.store === undefined;
  // The SQLite store (and its data directory) is created on first use, not here: creating a
  // Dossier writes nothing. (A PostgreSQL store sends nothing before its first query.)
  const base =
    options.store ??
    (config.databaseUrl?.trim()
      ? openStore({ home, databaseUrl: config.databaseUrl })
      : lazyStore(
          () => {
            makeHome(home, homeLabel);
            return openStore({ home });
          },
          { kind: "sqlite", location: join(home, DATABASE_FILE) },
        ));
  // Every status the store records is announced to the run's webhooks (the outbox), and the
  // first attempts start at once (webhooks/status-watch.ts).
  const webhooks = createWebhooks({
    store: base,
    config: config.webhooks,
    guard: { allowPrivateNetwork: config.allowPrivateNetwork },
    now: () => clock.now(),
    onError: (error) => process.emitWarning(`webhooks: ${(error as Error)?.message ?? String(error)}`),
  });
  const store = webhooks.store;
  const configured = registryFromConfig(config, {
    ...(options.models ? { models: options.models } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const limiter = typeof options.limiter === "function" ? options.limiter(config) : options.limiter;
  const models = limiter ? limitModels(configured, { limiter }) : configured;
  const strategies = createStrategyRegistry(options.strategies ?? []);
  // Runs whose process died (killed, crashed) are recorded as interrupted, not left running;
  // stored runs are read once that is done (on first use of the store). (A store that cannot be
  // reached fails each run.)
  let marked: Promise<void> | undefined;
  const ready = () => {
    marked ??= markInterruptedRuns(store, clock).then(
      () => {},
      () => {},
    );
    return marked;
  };
  const gateway = new ToolGateway({ cache: store.cache, clock });
  const active = new Map<string, ResearchHandle>();
  let closed = false;
  const deps: ResearchDeps = {
    config,
    store,
    registry: models,
    strategies,
    env,
    cwd,
    clock,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.toolPolicy ? { toolPolicy: options.toolPolicy } : {}),
    ...(options.llm ? { llm: options.llm } : {}),
    ...(limiter ? { limiter } : {}),
  };
  const track = (handle: ResearchHandle) => {
    active.set(handle.runId, handle);
    const forget = () => active.delete(handle.runId);
    void handle.done.then(forget, forget);
    return handle;
  };

  const dossier: Dossier = {
    config,
    loaded,
    home,
    store,
    webhooks: webhooks.deliverer,
    models,
    strategies,
    gateway,
    clock,
    research(question, researchOptions = {}) {
      if (closed) throw new Error("this Dossier is closed");
      // Stale runs are marked once a request is known to be runnable (a refused one opens no store).
      const onPrepared = (prepared: Parameters<NonNullable<typeof researchOptions.onPrepared>>[0]) => {
        void ready();
        researchOptions.onPrepared?.(prepared);
      };
      return track(startResearchHandle(question, { ...researchOptions, onPrepared }, deps));
    },
    ask(question, askOptions = {}) {
      const { about } = askOptions;
      if (about !== undefined) return askAbout(dossier, question, { ...askOptions, about });
      return askWith((q, o) => dossier.research(q, o), question, askOptions);
    },
    refresh(runId, refreshOptions = {}) {
      return refresh(dossier, runId, refreshOptions);
    },
    estimate(question, researchOptions = {}) {
      const input = estimateInput(question, researchOptions, { config, registry: models, strategies });
      return estimateResearch({ ...input, registry: models });
    },
    runs: runsApi(
      store,
      active,
      (runId, resumeOptions) => {
        if (closed) throw new Error("this Dossier is closed");
        // A refresh run resumes like any other once its strategy is known (it reads its parent again).
        registerRefresh(dossier);
        // So does a follow-up (it reads the run it is about again).
        registerFollowUp(dossier);
        return track(resumeResearchHandle(runId, resumeOptions, deps));
      },
      clock,
      ready,
      {
        // An answer to a review is recorded only once the run can be prepared here.
        precheck: async (record) => {
          const prepared = await prepareResearch(requestOfRun(record), { ...deps, runId: record.id });
          prepared.corpus?.index.close();
        },
      },
    ),
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      const running = [...active.values()];
      const closeStore = () =>
        ownStore ? (marked ?? Promise.resolve()).then(() => store.close()) : Promise.resolve();
      // The runs' first webhook attempts get `exitWaitMs` to finish; the rest stay in the outbox.
      const finish = () => webhooks.deliverer.close(config.webhooks.exitWaitMs).then(closeStore);
      // With nothing under way the store closes at once (SQLite: before close() returns).
      if (running.length === 0) {
        if (ownStore && store.kind === "sqlite" && !webhooks.deliverer.busy()) void store.close();
        return finish();
      }
      for (const handle of running) handle.cancel("Dossier closed");
      return Promise.allSettled(running.map((h) => h.done)).then(finish);
    },
  };
  return dossier;
}

/**
 * The data directory must be a directory, or one that can be created: checked without writing
 * (the directory is made when the store is first used, {@link makeHome}).
 */
function checkHome(home: string, label: string): void {
  if (existsSync(home)) {
    if (statSync(home).isDirectory()) return;
    throw new DossierError("CONFIG_INVALID", `invalid setting ${label}: ${home} is a file, not a directory`, {
      details: { setting: label, path: home },
    });
  }
  let parent = dirname(home);
  while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
  try {
    if (!statSync(parent).isDirectory()) {
      throw Object.assign(new Error(`${parent} is not a directory`), { code: "ENOTDIR" });
    }
    accessSync(parent, constants.W_OK);
  } catch (cause) {
    throw new DossierError(
      "CONFIG_INVALID",
      `invalid setting ${label}: cannot create the data directory ${home} (${(cause as NodeJS.ErrnoException).code ?? "error"})`,
      { cause, details: { setting: label, path: home } },
    );
  }
}

/** Creates the data directory (on the store's first use). */
function makeHome(home: string, label: string): void {
  try {
    makeDirs(home);
  } catch (cause) {
    throw new DossierError(
      "CONFIG_INVALID",
      `invalid setting ${label}: cannot create the data directory ${home} (${(cause as NodeJS.ErrnoException).code ?? "error"})`,
      { cause, details: { setting: label, path: home } },
    );
  }
}
