/**
 * Runs as the composition root offers them: stored runs and their events, and the runs this
 * process has under way, which can be cancelled by id.
 */

import { DossierError } from "../core/errors.ts";
import type { DossierEvent } from "../core/events.ts";
import type { RunRecord, RunStatus } from "../core/run.ts";
import type { EventQuery, Store } from "../store/types.ts";
import type { ResearchHandle, ResumeOptions } from "./research-handle.ts";

/** Stored and running runs. */
export interface RunsApi {
  /** Stored runs, newest first. */
  list(options?: { limit?: number; status?: RunStatus }): RunRecord[];
  /** One stored run by id or unique id prefix; NOT_FOUND otherwise. */
  get(idOrPrefix: string): RunRecord;
  /** A run's stored events. */
  events(idOrPrefix: string, query?: EventQuery): DossierEvent[];
  /** Ids of the runs under way in this process. */
  active(): string[];
  /** The handle of a run under way in this process, if any. */
  handle(runId: string): ResearchHandle | undefined;
  /** Cancels a run under way; false when no run of that id is under way here. */
  cancel(idOrPrefix: string, reason?: string): boolean;
  /**
   * Resumes an interrupted, cancelled or failed run with the same id: its journal replays (no
   * second request for a completed step) and its event log continues. Throws NOT_FOUND for an
   * unknown id; `done` rejects with CONFLICT when the run is completed or still running.
   */
  resume(idOrPrefix: string, options?: ResumeOptions): ResearchHandle;
}

/** The runs API over a store and the registry of running handles. */
export function runsApi(
  store: Store,
  active: ReadonlyMap<string, ResearchHandle>,
  resume: (runId: string, options: ResumeOptions) => ResearchHandle,
): RunsApi {
  const resolveId = (idOrPrefix: string) => {
    if (active.has(idOrPrefix)) return idOrPrefix;
    return store.runs.resolveId(idOrPrefix);
  };
  return {
    list: (options) => store.runs.list(options),
    get(idOrPrefix) {
      const record = store.runs.get(resolveId(idOrPrefix));
      if (!record) throw new DossierError("NOT_FOUND", `no run "${idOrPrefix}"`);
      return record;
    },
    events: (idOrPrefix, query) => store.events.list(resolveId(idOrPrefix), query),
    active: () => [...active.keys()],
    handle: (runId) => active.get(runId),
    resume: (idOrPrefix, options = {}) => resume(resolveId(idOrPrefix), options),
    cancel(idOrPrefix, reason) {
      let id: string;
      try {
        id = resolveId(idOrPrefix);
      } catch {
        return false;
      }
      const handle = active.get(id);
      if (!handle) return false;
      handle.cancel(reason);
      return true;
    },
  };
}
