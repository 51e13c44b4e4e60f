/**
 * XoT memory: the shared, append-only reasoning trace of a run — the planner's rationale, each
 * agent's key thoughts and findings, and their sub-reports — that later agents (the Report
 * agent) read alongside the tool memory.
 */

/** One entry of the trace. */
export interface XotEntry {
  /** Who wrote it: `planner`, `search:T-2`, `report`. */
  agent: string;
  kind: "rationale" | "thought" | "finding" | "sub-report" | "note";
  text: string;
}

/** The trace. Entries are never changed or removed. */
export class XotMemory {
  readonly #entries: XotEntry[] = [];

  /** Appends an entry. */
  append(entry: XotEntry): void {
    this.#entries.push(Object.freeze({ ...entry }));
  }

  /** All entries, oldest first. */
  entries(): readonly XotEntry[] {
    return this.#entries;
  }

  /**
   * The trace as text for a prompt, at most `maxChars` long: sub-reports and findings are kept
   * before thoughts, and each entry is cut to `perEntry` characters.
   */
  render(maxChars = 12_000, perEntry = 1_200): string {
    const priority = { rationale: 0, "sub-report": 1, finding: 2, note: 3, thought: 4 } as const;
    const ranked = this.#entries
      .map((e, index) => ({ e, index }))
      .sort((a, b) => priority[a.e.kind] - priority[b.e.kind] || a.index - b.index);
    const kept = new Set<number>();
    let used = 0;
    for (const { e, index } of ranked) {
      const size = Math.min(e.text.length, perEntry) + e.agent.length + 16;
      if (used + size > maxChars) continue;
      used += size;
      kept.add(index);
    }
    return this.#entries
      .map((e, index) => ({ e, index }))
      .filter(({ index }) => kept.has(index))
      .map(
        ({ e }) =>
          `[${e.agent} · ${e.kind}] ${e.text.length > perEntry ? `${e.text.slice(0, perEntry)}…` : e.text}`,
      )
      .join("\n");
  }
}
