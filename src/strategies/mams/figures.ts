/** Figures of a mams run (in the `decision` event that ends it). */
export interface MamsFigures {
  turns: number;
  toolCalls: number;
  callsByTurn: number[];
  chunks: number;
  searchCalls: number;
  /** State updates whose rewritten memory replaced the old one (Eq. 4). */
  memoryRewrites: number;
  /** Facts rewritten without their evidence ids that were given back the ids of the old fact. */
  provenanceCarried: number;
  /** Rewrites that still broke a rule when re-asked and were repaired (memory.ts). */
  memoryRepairs: number;
  /** Facts cut from a rewrite over the memory's token budget. */
  factsCut: number;
  /** Chunks whose state update changed the plan. */
  planUpdates: number;
  /** `<sup>[n]</sup>` citations of the report agent read as evidence ids. */
  citationsRead: number;
  /** Numbers of `<sup>[n]</sup>` citations that named no listed source (dropped). */
  citationErrors: number;
  appendOnlyUpdates: number;
}

/** Figures of a run that has not started. */
export function emptyFigures(): MamsFigures {
  return {
    turns: 0,
    toolCalls: 0,
    callsByTurn: [],
    chunks: 0,
    searchCalls: 0,
    memoryRewrites: 0,
    provenanceCarried: 0,
    memoryRepairs: 0,
    factsCut: 0,
    planUpdates: 0,
    citationsRead: 0,
    citationErrors: 0,
    appendOnlyUpdates: 0,
  };
}
