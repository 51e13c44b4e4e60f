/**
 * The provider limits a worker's shared limiter applies, from the configuration: `providerLimits`
 * by provider name (a search provider's, or `model:<provider>`) over what the caller asks for
 * (a search provider's policy, or the default of model providers), and `modelConcurrency` as the
 * concurrency of every model provider without its own entry.
 */

import type { Config } from "../runtime/config.ts";
import type { ProviderLimits } from "../tools/provider-limiter.ts";

/** The `limitsOf` of a worker's limiter under `config`. */
export function configuredLimits(
  config: Pick<Config, "modelConcurrency" | "providerLimits">,
): (provider: string, asked: ProviderLimits) => ProviderLimits {
  return (provider, asked) => {
    const model =
      provider.startsWith("model:") && config.modelConcurrency
        ? { concurrency: config.modelConcurrency }
        : {};
    const own = config.providerLimits?.[provider] ?? {};
    return {
      ...asked,
      ...model,
      ...(own.concurrency !== undefined ? { concurrency: own.concurrency } : {}),
      ...(own.ratePerSecond !== undefined ? { ratePerSecond: own.ratePerSecond } : {}),
    };
  };
}
