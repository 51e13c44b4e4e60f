/**
 * A store opened on its first use: the composition root builds one, so that creating a Dossier
 * writes nothing — no data directory, no database file — until something reads or writes runs
 * (a run starting, `runs list`…).
 */

import type { Store } from "./types.ts";

/** A {@link Store} that opens the one `open` returns when first used. */
export interface LazyStore extends Store {
  /** True once the store has been opened. */
  opened(): boolean;
}

/**
 * The store `open` returns, opened on the first call of any of its operations. `kind` and
 * `location` are known before (they name what will be opened). Closing a store never opened
 * opens nothing.
 */
export function lazyStore(open: () => Store, info: { kind: string; location: string }): LazyStore {
  let real: Store | undefined;
  const store = () => {
    real ??= open();
    return real;
  };
  /** A part of the store (runs, events, cache, deliveries) whose methods open the store when called. */
  const part = <K extends "runs" | "events" | "cache" | "deliveries">(key: K): Store[K] =>
    new Proxy({} as Store[K], {
      get(_target, property) {
        const target = store()[key] as unknown as Record<PropertyKey, unknown>;
        const value = target[property];
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return {
    kind: info.kind,
    location: info.location,
    runs: part("runs"),
    events: part("events"),
    cache: part("cache"),
    deliveries: part("deliveries"),
    journal: (runId) => store().journal(runId),
    ready: () => store().ready(),
    close: () => (real ? real.close() : Promise.resolve()),
    opened: () => real !== undefined,
  };
}
