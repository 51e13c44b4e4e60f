/**
 * Whether the services a queued run needs answer now: the run queue's Redis and the shared
 * store, each within a bound. What the server asks before it accepts a run, so that a request
 * made while either is away is refused at once instead of waiting for it to return.
 */

import { DossierError } from "../core/errors.ts";
import type { Store } from "../store/types.ts";
import { withDeadline } from "./deadline.ts";
import type { RunQueue } from "./run-queue.ts";

/** Resolves once the store (and `queue`, when given) answer within `timeoutMs`; STORE_ERROR naming what did not. */
export async function servicesReady(store: Store, queue: RunQueue | null, timeoutMs: number): Promise<void> {
  const checks: Array<Promise<unknown>> = [
    withDeadline(
      // A read of a run that cannot exist: a round trip to the store, nothing more.
      store.runs.get("-"),
      timeoutMs,
      `the store at ${store.location}`,
    ).catch((cause: Error) => {
      throw new DossierError("STORE_ERROR", `the store does not answer: ${cause.message}`, {
        cause,
        details: { service: "store" },
      });
    }),
  ];
  if (queue)
    checks.push(
      queue.ready(timeoutMs).catch((cause: Error) => {
        throw new DossierError("STORE_ERROR", cause.message, { cause, details: { service: "queue" } });
      }),
    );
  await Promise.all(checks);
}
