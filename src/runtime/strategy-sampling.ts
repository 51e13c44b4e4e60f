/**
 * The sampling a strategy states for its roles, as LLM client options for one run.
 */

import type { LlmClientOptions } from "../llm/client.ts";
import type { StrategyDefinition } from "../strategies/types.ts";

/** `{ sampling }` for the client of a run of `definition` with `options`; `{}` when it states none. */
export function samplingOf(
  definition: StrategyDefinition<unknown>,
  options: unknown,
): Pick<LlmClientOptions, "sampling"> {
  const sampling = definition.sampling?.(options);
  return sampling && Object.keys(sampling).length ? { sampling } : {};
}
