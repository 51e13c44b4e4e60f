/**
 * The one-call ask API: `ask(question, options)` builds a Dossier from the configuration file,
 * the environment and `options`, answers one deep-search question with the `smtl` strategy,
 * closes everything and returns the short answer with its citations, the passages behind them
 * and the run's figures.
 *
 * ```ts
 * import { ask } from "dossier";
 * const result = await ask("Which river flows through the capital of the country that won the 1998 World Cup?");
 * console.log(result.answer, result.citations, result.toolCallsPerStep);
 * ```
 */

import type { AskOptions, AskResult } from "./ask-run.ts";
import { createDossier, type DossierOptions } from "./dossier.ts";

/** Options of {@link ask}: the ask's options plus how to build the Dossier. */
export interface AskCallOptions extends AskOptions {
  /** How to build the Dossier (configuration, environment, store, models…). */
  dossier?: DossierOptions;
}

/**
 * Answers one question and resolves with the answer. Rejects with a `DossierError` when
 * nothing could run (invalid request or configuration, no model); a run that started and
 * failed resolves with `status: "failed"` and an empty answer.
 */
export async function ask(question: string, options: AskCallOptions = {}): Promise<AskResult> {
  const { dossier: dossierOptions, ...askOptions } = options;
  const dossier = createDossier(dossierOptions);
  try {
    return await dossier.ask(question, askOptions);
  } finally {
    await dossier.close();
  }
}
