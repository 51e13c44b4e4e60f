/**
 * XoT memory (MindDR §3.1): the shared, append-only reasoning trace of a run — the planner's
 * rationale, each agent's thoughts and key findings, and their sub-reports. Every agent reads
 * it: a DeepSearch agent sees the planner's rationale and what the other agents have found so
 * far (so it neither repeats nor contradicts them unknowingly); the Report agent reads the whole
 * trace alongside the tool memory. Each entry is also recorded as an `xot-add` event, so the
 * trace is part of the audit log.
 */

/** One entry of the trace. */
export interface XotEntry {
  /** Who wrote it: `planner`, `search:T-2`, `report`. */
  agent: string;
  kind: "rationale" | "thought" | "finding" | "sub-report" | "note";
  text: string;
}

/** Options of {@link XotMemory}. */
export interface XotMemoryOptions {
  /** Receives every appended entry (to record it as an event). */
  onAppend?: (entry: Readonly<XotEntry>) => void;
}

const PRIORITY = { rationale: 0, "sub-report": 1, finding: 2, note: 3, thought: 4 } as const;

/** The trace. Entries are never changed or removed. */
export class XotMemory {
  readonly #entries: XotEntry[] = [];
  readonly #onAppend: ((entry: Readonly<XotEntry>) => void) | undefined;

  constructor(options: XotMemoryOptions = {}) {
    this.#onAppend = options.onAppend;
  }

  /** Appends an entry (blank texts are ignored). */
  append(entry: XotEntry): void {
    const text = entry.text.trim();
    if (!text) return;
    const frozen = Object.freeze({ ...entry, text });
    this.#entries.push(frozen);
    this.#onAppend?.(frozen);
  }

  /** All entries, oldest first. */
  entries(): readonly XotEntry[] {
    return this.#entries;
  }

  /**
   * The whole trace as text for a prompt, at most `maxChars` long: the rationale, sub-reports
   * and findings are kept before thoughts, each entry cut to `perEntry` characters, and the
   * kept entries shown agent by agent (the planner first, then `search:T-1`, `search:T-2`, …),
   * each agent's in the order it wrote them. Not in arrival order: agents run concurrently, and
   * the same trace must read the same however they interleaved (a resumed run replays the
   * report's journaled calls only if their prompts match).
   */
  render(maxChars = 12_000, perEntry = 1_200): string {
    return renderEntries(
      canonicalOrder(this.#entries),
      maxChars,
      perEntry,
      (a, b) => PRIORITY[a.kind] - PRIORITY[b.kind],
    );
  }

  /**
   * What agent `agent` should know from the others, at most `maxChars` long: the planner's
   * rationale, then the other agents' findings and sub-reports, the newest first when space
   * runs out. The agent's own entries and other agents' thoughts are left out. Empty when
   * nothing is there yet.
   */
  renderFor(agent: string, maxChars = 3_000, perEntry = 400): string {
    const shared = this.#entries.filter(
      (e) => e.agent !== agent && (e.kind === "rationale" || e.kind === "finding" || e.kind === "sub-report"),
    );
    const order = new Map(shared.map((e, i) => [e, i]));
    return renderEntries(
      shared,
      maxChars,
      perEntry,
      (a, b) =>
        Number(b.kind === "rationale") - Number(a.kind === "rationale") ||
        (order.get(b) ?? 0) - (order.get(a) ?? 0),
    );
  }
}

const byAgent = new Intl.Collator("en", { numeric: true });

/** Entries grouped by agent — the planner first, then by name with numbers in numeric order — each agent's in writing order. */
function canonicalOrder(entries: readonly XotEntry[]): XotEntry[] {
  const rank = (e: XotEntry) => (e.agent === "planner" ? 0 : 1);
  return entries
    .map((e, index) => ({ e, index }))
    .sort((a, b) => rank(a.e) - rank(b.e) || byAgent.compare(a.e.agent, b.e.agent) || a.index - b.index)
    .map(({ e }) => e);
}

function renderEntries(
  entries: readonly XotEntry[],
  maxChars: number,
  perEntry: number,
  rank: (a: XotEntry, b: XotEntry) => number,
): string {
  const ranked = entries
    .map((e, index) => ({ e, index }))
    .sort((a, b) => rank(a.e, b.e) || a.index - b.index);
  const kept = new Set<number>();
  let used = 0;
  for (const { e, index } of ranked) {
    const size = Math.min(e.text.length, perEntry) + e.agent.length + 16;
    if (used + size > maxChars) continue;
    used += size;
    kept.add(index);
  }
  return entries
    .filter((_, index) => kept.has(index))
    .map(
      (e) =>
        `[${e.agent} · ${e.kind}] ${e.text.length > perEntry ? `${e.text.slice(0, perEntry)}…` : e.text}`,
    )
    .join("\n");
}
