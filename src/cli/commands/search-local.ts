/**
 * The local-corpus branch of `dossier search --provider local`. (Filled in by the corpus work.)
 */

import { DossierError } from "../../core/errors.ts";
import type { CliIo } from "../io.ts";
import type { GlobalFlags } from "../settings.ts";

/** Flags of a local search. */
export interface LocalSearchFlags extends GlobalFlags {
  corpus?: string;
  topK?: number;
  json?: boolean;
}

/** Runs a local search and prints its results. */
export async function runLocalSearch(_io: CliIo, _query: string, _flags: LocalSearchFlags): Promise<void> {
  throw new DossierError("INPUT_INVALID", "local search is not available in this build");
}
