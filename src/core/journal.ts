/**
 * The step journal: completed model and tool results stored by a deterministic key, so a run
 * that is resumed replays what it already paid for instead of calling again.
 */

/** A stored result of one completed step. */
export interface JournalEntry {
  /** `llm` or `tool`. */
  kind: string;
  /** The JSON-serialisable result. */
  value: unknown;
}

/** Where completed steps are kept. */
export interface StepJournal {
  /** The entry stored under `key`, if any. */
  get(key: string): JournalEntry | undefined;
  /** Stores an entry under `key` (a later put under the same key replaces it). */
  put(key: string, entry: JournalEntry): void;
}

/** A journal held in memory (for tests and runs without a store). */
export function createMemoryJournal(): StepJournal & { size(): number } {
  const entries = new Map<string, JournalEntry>();
  return {
    get: (key) => entries.get(key),
    put: (key, entry) => {
      entries.set(key, entry);
    },
    size: () => entries.size,
  };
}

/**
 * Hands out step keys: `<kind>:<hash>#<n>` where `n` counts earlier steps with the same
 * request hash in this run, so identical requests made twice get distinct keys while a rerun
 * of the same code produces the same keys in the same order.
 */
export class StepKeyer {
  readonly #seen = new Map<string, number>();

  /** The key for the next step with this request hash. */
  next(kind: string, requestHash: string): string {
    const base = `${kind}:${requestHash}`;
    const n = (this.#seen.get(base) ?? 0) + 1;
    this.#seen.set(base, n);
    return `${base}#${n}`;
  }
}
