/** The strategies Dossier ships with, in the order help texts list them. */

import { graphStrategy } from "./graph/definition.ts";
import { mamsStrategy } from "./mams/definition.ts";
import { minddrStrategy } from "./minddr/definition.ts";
import { offlineStrategy } from "./offline/definition.ts";
import { smtlStrategy } from "./smtl/definition.ts";
import type { StrategyDefinition } from "./types.ts";
import { warpStrategy } from "./warp/definition.ts";

export { graphStrategy, minddrStrategy, offlineStrategy, smtlStrategy, warpStrategy };

/** The built-in strategies. */
export const BUILTIN_STRATEGIES: readonly StrategyDefinition<never>[] = [
  graphStrategy,
  minddrStrategy,
  offlineStrategy,
  smtlStrategy,
  warpStrategy,
  mamsStrategy,
] as unknown as StrategyDefinition<never>[];
