/**
 * The model client of an evaluation: the judge model is `judge` (a `provider:model` string) when
 * given, else the configuration's judge role (DOSSIER_MODEL_JUDGE), else the default model.
 */

import { addCallUsage, emptyUsage, type UsageTotals } from "../../core/usage.ts";
import { LlmClient, type LlmClientOptions } from "../../llm/client.ts";
import { formatModelSpec, parseModelSpec } from "../../llm/model-spec.ts";
import type { Config } from "../../runtime/config.ts";
import { registryFromConfig } from "../../runtime/models.ts";

/** Options of {@link createJudgeClient}. */
export interface JudgeClientOptions {
  config: Config;
  /** Overrides the judge model (`--judge provider:model`). */
  judge?: string;
  /** Passed to the client (retry policy, timeouts). */
  llm?: Pick<LlmClientOptions, "retry" | "timeoutMs" | "clock" | "signal" | "emit">;
  fetch?: typeof globalThis.fetch;
}

/** A judge client and the usage it accumulates. */
export interface JudgeClient {
  client: LlmClient;
  /** `provider:model` of the judge. */
  model: string;
  /** Usage of every call made so far. */
  usage(): UsageTotals;
}

/** Builds the judge client; throws MODEL_SPEC_INVALID or MODEL_NOT_CONFIGURED up front. */
export function createJudgeClient(options: JudgeClientOptions): JudgeClient {
  const { config } = options;
  const judge = options.judge === undefined ? undefined : formatModelSpec(parseModelSpec(options.judge));
  const registry = registryFromConfig(
    judge ? { ...config, models: { ...config.models, judge } } : config,
    options.fetch ? { fetch: options.fetch } : {},
  );
  let usage = emptyUsage();
  const client = new LlmClient({
    ...options.llm,
    registry,
    onUsage: (call) => {
      usage = addCallUsage(usage, call);
    },
  });
  const model = client.resolve("judge").name;
  return { client, model, usage: () => usage };
}
