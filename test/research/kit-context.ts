/**
 * A run context for tests of one kit stage (e.g. the report writer) with the scripted research
 * model on loopback: the real model client, so structured answers are parsed and repaired as in
 * a run, events numbered and tagged with their scope, an evidence registry the test fills — and
 * none of a run's other machinery (store, strategy, tools). Its script is checked when the test
 * ends, like a research world's.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import type { Clock } from "../../src/core/clock.ts";
import { systemClock } from "../../src/core/clock.ts";
import type { DossierEvent, EventInput } from "../../src/core/events.ts";
import { EvidenceRegistry } from "../../src/core/evidence-registry.ts";
import { createSequentialIds } from "../../src/core/ids.ts";
import { runOptionsSchema } from "../../src/core/run-options.ts";
import { emptyUsage } from "../../src/core/usage.ts";
import { contextMethods, type RunContext } from "../../src/kit/run-context.ts";
import { LlmClient } from "../../src/llm/client.ts";
import { configSchema } from "../../src/runtime/config.ts";
import { registryFromConfig } from "../../src/runtime/models.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../fake-openai/index.ts";
import type { RecordedRequest } from "../fake-openai/types.ts";
import { createModelScript, type ModelScript, type ModelScriptOptions } from "./model-script.ts";
import { registerScript } from "./script-checks.ts";

/** An event as the kit context logs it. */
export type LoggedEvent = EventInput & { seq: number; scope?: string };

/** Options of {@link startKitContext}. */
export interface KitContextOptions extends ModelScriptOptions {
  query?: string;
  /** The run's strategy name (run options). Default "graph". */
  strategy?: string;
  /** Section writers at once (run options). Default 4. */
  concurrency?: number;
  /** Awaited before the script answers a model request (see overlap-gate.ts). */
  hold?: (request: RecordedRequest) => Promise<void>;
}

/** A running kit context. */
export interface KitContext {
  ctx: RunContext;
  script: ModelScript;
  model: FakeOpenAI;
  evidence: EvidenceRegistry;
  events: LoggedEvent[];
  close(): Promise<void>;
}

/** Starts the scripted model and builds the context. */
export async function startKitContext(options: KitContextOptions = {}): Promise<KitContext> {
  const script = createModelScript(options);
  registerScript(script);
  const hold = options.hold;
  const model = await startFakeOpenAI({
    handler: hold
      ? async (request) => {
          await hold(request);
          return script.handler(request);
        }
      : script.handler,
  });
  const config = configSchema.parse({
    model: "openai-compatible:fake-model",
    baseUrl: model.url,
    apiKey: "sk-test",
    search: ["searxng"],
    searxngUrl: "http://127.0.0.1:9/",
  });
  const events: LoggedEvent[] = [];
  const scopes = new AsyncLocalStorage<string>();
  const emit = (event: EventInput) => {
    const scope = scopes.getStore();
    const logged = { ...event, seq: events.length + 1, ...(scope ? { scope } : {}) } as LoggedEvent;
    events.push(logged);
    return logged as unknown as DossierEvent;
  };
  const clock: Clock = systemClock;
  const ids = createSequentialIds();
  const evidence = new EvidenceRegistry(ids);
  const controller = new AbortController();
  const llm = new LlmClient({
    registry: registryFromConfig(config),
    emit,
    clock,
    ids,
    signal: controller.signal,
    retry: { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 20, jitter: 0 },
  });
  const ctx = {
    runId: "run-kit",
    query: options.query ?? "How is topic adoption changing?",
    options: runOptionsSchema.parse({
      strategy: options.strategy ?? "graph",
      concurrency: options.concurrency ?? 4,
    }),
    currentDate: "2026-03-01",
    clock,
    ids,
    signal: controller.signal,
    llm,
    evidence,
    emit,
    inScope: (scope: string, fn: () => Promise<unknown>) => scopes.run(scope, fn),
    usage: () => emptyUsage(),
    ...contextMethods(llm),
  } as unknown as RunContext;
  return {
    ctx,
    script,
    model,
    evidence,
    events,
    close: async () => {
      controller.abort("closed");
      await model.close();
    },
  };
}
