/**
 * Id generation as a dependency: sequential, prefix-scoped ids (`S1`, `E1`, `T-1`) that are
 * stable within a run and can be restored when a run resumes.
 */

/** Produces ids for a prefix. */
export interface IdGenerator {
  /** The next id for `prefix`, e.g. `next("E")` → `"E1"`, then `"E2"`. */
  next(prefix: string): string;
  /** Counters per prefix, for checkpointing. */
  snapshot(): Record<string, number>;
}

/** Creates a sequential id generator, optionally restored from a snapshot. */
export function createSequentialIds(initial: Record<string, number> = {}): IdGenerator {
  const counters = new Map<string, number>(Object.entries(initial));
  return {
    next(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}${n}`;
    },
    snapshot: () => Object.fromEntries(counters),
  };
}

/** The numeric part of a prefixed id (`"E12"` → 12), or null when it does not match. */
export function idNumber(id: string, prefix: string): number | null {
  if (!id.startsWith(prefix)) return null;
  const rest = id.slice(prefix.length);
  return /^[1-9]\d*$/.test(rest) ? Number(rest) : null;
}
