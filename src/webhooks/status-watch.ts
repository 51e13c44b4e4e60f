/**
 * The one place run statuses are written is the store's `runs` part: a run's end (`update`), a
 * queued run cancelled (`requestCancel`), any status a strategy records. `watchRunStatuses`
 * wraps a store so that after each status write the listener sees the run's record, and the
 * write resolves only once the listener has (its outbox rows are stored before the caller goes
 * on). A listener that fails never fails the status write.
 */

import type { RunRecord } from "../core/run.ts";
import type { RunStore, Store } from "../store/types.ts";

/** Sees a run's record after its status was written. */
export type StatusListener = (record: RunRecord) => Promise<void>;

/** `store` with every status write of its runs seen by `listener`. */
export function watchRunStatuses<S extends Store>(
  store: S,
  listener: StatusListener,
  onError: (error: unknown) => void = () => {},
): S {
  const runs = store.runs;
  const seen = async (record: RunRecord | undefined) => {
    if (!record) return;
    try {
      await listener(record);
    } catch (error) {
      onError(error);
    }
  };
  const watched: RunStore = {
    create: (run) => runs.create(run),
    get: (id) => runs.get(id),
    list: (options) => runs.list(options),
    claim: (id, owner, now, options) => runs.claim(id, owner, now, options),
    heartbeat: (id, owner, now) => runs.heartbeat(id, owner, now),
    resolveId: (prefix) => runs.resolveId(prefix),
    async update(id, update) {
      const record = await runs.update(id, update);
      if (update.status !== undefined) await seen(record);
      return record;
    },
    async requestCancel(id, reason, now) {
      const asked = await runs.requestCancel(id, reason, now);
      // A queued run is cancelled at once; a running one ends (and is seen) through `update`.
      if (asked) {
        const record = await runs.get(id).catch(() => undefined);
        if (record?.status === "cancelled") await seen(record);
      }
      return asked;
    },
  };
  return Object.assign(Object.create(Object.getPrototypeOf(store)), store, { runs: watched }) as S;
}
