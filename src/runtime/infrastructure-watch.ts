/**
 * What a run is told about the shared services its calls wait on (the provider limiter on
 * Redis): a call that waits for a service that does not answer is reported (a warning), and a
 * service that stays away past its bound fails the run at once. An infrastructure fault is not
 * the model's: the call was never made, so no strategy may write a fallback in its place — the
 * run ends failed with the service's error instead (see run.ts). The watch is carried by the
 * async context of the run's strategy, so a shared limiter reaches the run its caller belongs to.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import type { DossierError } from "../core/errors.ts";

/** How a run hears of a shared service that does not answer. */
export interface InfrastructureWatch {
  /** A call waits for a service that does not answer; it is tried again with backoff. */
  waiting(notice: { code: string; message: string }): void;
  /** The service stayed away past its bound: the run fails with `error` at once. */
  failed(error: DossierError): void;
}

const watches = new AsyncLocalStorage<InfrastructureWatch>();

/** Runs `fn` with `watch` told of the services its calls wait on. */
export function watchInfrastructure<T>(watch: InfrastructureWatch, fn: () => T): T {
  return watches.run(watch, fn);
}

/** The watch of the run the caller belongs to, if any. */
export function infrastructureWatch(): InfrastructureWatch | undefined {
  return watches.getStore();
}
