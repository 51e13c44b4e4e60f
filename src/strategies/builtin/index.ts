/** The strategies Dossier ships with, in the order help texts list them. */

import type { StrategyDefinition } from "../types.ts";
import { graphStrategy } from "./graph.ts";
import { mamsStrategy } from "./mams.ts";
import { minddrStrategy } from "./minddr.ts";
import { offlineStrategy } from "./offline.ts";
import { smtlStrategy } from "./smtl.ts";
import { warpStrategy } from "./warp.ts";

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
