/**
 * The events of a run that another process executes (a worker), read from the shared store with
 * a cursor: every `pollMs` the events after the last one seen, in order, without gaps or
 * repeats, until run-end (or until the run's promise settles and the log has nothing more).
 */

import type { DossierEvent } from "../core/events.ts";
import type { EventLog } from "../store/types.ts";

/** Iterates the events of `runId` after `afterSeq` until the run ends. */
export function polledEvents(
  log: EventLog,
  runId: string,
  finished: Promise<unknown>,
  options: { afterSeq?: number; pollMs?: number } = {},
): AsyncIterable<DossierEvent> {
  const pollMs = options.pollMs ?? 250;
  return {
    async *[Symbol.asyncIterator]() {
      let settled = false;
      let wake: (() => void) | null = null;
      const onSettled = () => {
        settled = true;
        wake?.();
      };
      void finished.then(onSettled, onSettled);
      let last = options.afterSeq ?? 0;
      for (;;) {
        const wasSettled = settled;
        for (const event of await log.list(runId, { afterSeq: last })) {
          last = event.seq;
          yield event;
          if (event.type === "run-end") return;
        }
        if (wasSettled) return;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    },
  };
}
