/**
 * What earlier attempts of a run registered, read back from its event log: a resumed run gives
 * every source and passage it finds again the id it had (see EvidenceRegistry), so the prompts
 * it rebuilds match the journaled ones even when concurrent agents finish in another order.
 */

import type { DossierEvent } from "../core/events.ts";
import type { RegistrySnapshot } from "../core/evidence-registry.ts";
import { evidenceSchema, sourceSchema } from "../core/source.ts";

/** The sources and evidence of the `source-add` and `evidence-add` events of `events`. */
export function earlierEvidence(events: readonly DossierEvent[]): RegistrySnapshot {
  const snapshot: RegistrySnapshot = { sources: [], evidence: [] };
  for (const event of events) {
    if (event.type === "source-add") {
      const source = sourceSchema.safeParse(event.source);
      if (source.success) snapshot.sources.push(source.data);
    } else if (event.type === "evidence-add") {
      const evidence = evidenceSchema.safeParse(event.evidence);
      if (evidence.success) snapshot.evidence.push(evidence.data);
    }
  }
  return snapshot;
}
