/**
 * The one-call API: `research(question, options)` builds a Dossier from the configuration file,
 * the environment and `options`, runs one research job to its end, closes everything and
 * returns the outcome.
 *
 * ```ts
 * import { research } from "dossier";
 * const result = await research("How do heat pumps perform in cold climates?", {
 *   docs: "./papers",
 *   formats: ["md", "html"],
 *   onEvent: (e) => console.log(e.type),
 * });
 * console.log(result.status, result.paths);
 * ```
 */

import { createDossier, type DossierOptions } from "./dossier.ts";
import type { ResearchOptions, ResearchResult } from "./research-handle.ts";

/** Options of {@link research}: the run's options plus how to build the Dossier. */
export interface ResearchCallOptions extends ResearchOptions {
  /** How to build the Dossier (configuration, environment, store, models…). */
  dossier?: DossierOptions;
}

/**
 * Runs one research job and resolves with its result. Rejects with a `DossierError` when
 * nothing could run (invalid request or configuration, no model and no documents); a run that
 * started and failed resolves with `status: "failed"`.
 */
export async function research(question: string, options: ResearchCallOptions = {}): Promise<ResearchResult> {
  const { dossier: dossierOptions, ...runOptions } = options;
  const dossier = createDossier(dossierOptions);
  try {
    return await dossier.research(question, runOptions).done;
  } finally {
    await dossier.close();
  }
}
