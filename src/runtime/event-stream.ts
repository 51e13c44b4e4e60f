/**
 * A run's events as an async iterable: the stored ones first, then live ones as they are
 * appended, ending after run-end (or when the run's promise settles without one).
 */

import type { DossierEvent } from "../core/events.ts";
import type { EventLog } from "../store/types.ts";

/** Iterates the events of `runId` from `afterSeq` on until the run ends. */
export function eventStream(
  log: EventLog,
  runId: string,
  finished: Promise<unknown>,
  afterSeq = 0,
): AsyncIterable<DossierEvent> {
  return {
    async *[Symbol.asyncIterator]() {
      const queue: DossierEvent[] = [];
      let wake: (() => void) | null = null;
      let settled = false;
      const notify = () => {
        wake?.();
        wake = null;
      };
      const unsubscribe = log.subscribe(runId, (event) => {
        queue.push(event);
        notify();
      });
      void finished.then(
        () => {
          settled = true;
          notify();
        },
        () => {
          settled = true;
          notify();
        },
      );
      let last = afterSeq;
      try {
        for (const event of await log.list(runId, { afterSeq })) {
          last = event.seq;
          yield event;
          if (event.type === "run-end") return;
        }
        for (;;) {
          while (queue.length) {
            const event = queue.shift()!;
            if (event.seq <= last) continue;
            last = event.seq;
            yield event;
            if (event.type === "run-end") return;
          }
          if (settled) {
            for (const event of await log.list(runId, { afterSeq: last })) {
              yield event;
              if (event.type === "run-end") return;
            }
            return;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      } finally {
        unsubscribe();
      }
    },
  };
}
