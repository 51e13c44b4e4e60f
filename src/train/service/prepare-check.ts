/**
 * The whole check a run gets when it is prepared, made once for a batch before anything is
 * created: a rollout's research request as its run would be started (the first row's question,
 * the strategy with its options, the budgets, the sources, the corpus), prepared against the
 * policy's Dossier — its configuration, models and strategies — and not started. What only
 * preparing finds is then a 400 or 422 of the request, not an error of every rollout: sources
 * that need a corpus none was named for, a corpus with no text, no web search provider for web
 * sources, a cost budget an unpriced model cannot keep. Preparing writes nothing (the batch's
 * requests carry no documents folder to index); a corpus it opens is closed again.
 */

import type { Dossier } from "../../runtime/dossier.ts";
import { prepareResearch } from "../../runtime/research.ts";
import { type ResearchOptions, withConfigDefaults } from "../../runtime/research-handle.ts";

/** Prepares `question` with `options` in `dossier` (see the module comment); throws what preparing refuses. */
export async function checkPreparation(
  dossier: Dossier,
  question: string,
  options: Omit<ResearchOptions, "signal" | "onEvent" | "onPrepared" | "onIndexed" | "clarify" | "runId">,
  environment: { env: Record<string, string | undefined>; cwd: string },
): Promise<void> {
  const prepared = await prepareResearch(withConfigDefaults(question, options, dossier.config), {
    config: dossier.config,
    store: dossier.store,
    registry: dossier.models,
    strategies: dossier.strategies,
    env: environment.env,
    cwd: environment.cwd,
    clock: dossier.clock,
  });
  prepared.corpus?.index.close();
}
