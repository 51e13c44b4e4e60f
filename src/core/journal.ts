/**
 * The step journal: completed model and tool results stored by a deterministic key, so a run
 * that is resumed replays what it already paid for instead of calling again.
 */

/** A stored result of one completed step. */
export interface JournalEntry {
  /** `llm`, `tool` or `state` (see {@link recallState}). */
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

/**
 * A piece of run state a prompt is built from, fixed once per run: the value an earlier
 * attempt stored under `state:<name>`, else `compute()`'s, stored. For state that depends on
 * timing — what concurrent agents have written so far — so a resumed run rebuilds the prompt
 * an earlier attempt sent (and its journaled answer replays) instead of a prompt that differs
 * only because its agents finished in another order. `name` must name one step of one agent.
 */
export function recallState<T>(journal: StepJournal, name: string, compute: () => T): T {
  const key = `state:${name}`;
  const stored = journal.get(key);
  if (stored?.kind === "state") return stored.value as T;
  const value = compute();
  journal.put(key, { kind: "state", value });
  return value;
}
