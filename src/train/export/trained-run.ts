/**
 * The run a training export reads. A forced-expansion warp run is pruned at its best-scored draft
 * (WARP §2.3.1; curation/warp-pruned-run.ts): its calls up to that draft, then the relabelled
 * TERMINATE; with `reprompt` (sft) its forced decisions before the cut are taught on their
 * unforced requests. Every call left out after the cut is listed as skipped with the reason; a
 * forced run that cannot be pruned (recorded by an earlier version) is skipped whole. Any other
 * run, or any run when pruning is off, is read as recorded.
 */

import { isDossierError } from "../../core/errors.ts";
import { isForcedExpansionRun, type PrunedRun, prunedRun } from "../curation/warp-pruned-run.ts";
import type { RecordedRun } from "../recorded-run.ts";
import type { ExportSkip } from "./export-result.ts";

/** What {@link trainedRun} gives: the run to export and, for a pruned run, its pruning. */
export interface TrainedRun {
  run: RecordedRun;
  pruned: PrunedRun | null;
}

/** The run to export (see the module comment); null, with the reason in `skipped`, when it cannot be. */
export function trainedRun(
  run: RecordedRun,
  options: { pruning?: boolean | undefined; reprompt: boolean },
  skipped: ExportSkip[],
): TrainedRun | null {
  if (options.pruning === false || !isForcedExpansionRun(run)) return { run, pruned: null };
  let pruned: PrunedRun;
  try {
    pruned = prunedRun(run, { reprompt: options.reprompt });
  } catch (error) {
    if (!isDossierError(error, "INPUT_INVALID")) throw error;
    skipped.push({ runId: run.runId, reason: error.message });
    return null;
  }
  const reason = `after the cut: WARP pruning ends the trajectory at draft ${pruned.pruned.cut} with a relabelled TERMINATE`;
  for (const callId of pruned.dropped) skipped.push({ runId: run.runId, callId, reason });
  return { run: pruned.run, pruned };
}
