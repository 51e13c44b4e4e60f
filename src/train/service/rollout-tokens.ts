/**
 * A rollout's token-level records for the results of a batch asked with `tokens: true`: its
 * recorded run read back from the store (the calls' token ids and log-probs, recorded from the
 * policy server with `recordTokens`) and made into the `tokens` export's records
 * (train/tokens/token-record.ts) — trajectory segments for appending agents, one (state, action)
 * call each for agents that rebuild their prompt — with the rollout's reward, its components,
 * its group advantage and the batch's policy version on every record. Calls the server gave no
 * ids for are listed as skipped, with the reason.
 */

import type { Dossier } from "../../runtime/dossier.ts";
import type { ExportSkip } from "../export/export-result.ts";
import { recordedRunFromEvents } from "../run-from-events.ts";
import { type TokenRecord, tokenRecords } from "../tokens/token-record.ts";
import { type BatchState, type RolloutState, SAMPLES } from "./batch-state.ts";

/** The token records of one rollout, and the calls left out. */
export interface RolloutTokens {
  records: TokenRecord[];
  skipped: ExportSkip[];
}

/** The token records of `rollout` (none for a rollout that is no sample). */
export async function rolloutTokens(
  dossier: Pick<Dossier, "runs">,
  batch: Pick<BatchState, "policyVersion">,
  rollout: RolloutState,
): Promise<RolloutTokens> {
  if (!rollout.runId || !SAMPLES.has(rollout.status)) return { records: [], skipped: [] };
  const run = recordedRunFromEvents({
    row: rollout.row,
    events: await dossier.runs.events(rollout.runId),
    report: null,
    group: { id: rollout.row.id, index: rollout.index },
  });
  const reward =
    rollout.reward === null ? null : { reward: rollout.reward, components: rollout.components ?? {} };
  return tokenRecords([{ run, reward, advantage: rollout.advantage }], {
    policyVersion: String(batch.policyVersion),
  });
}
