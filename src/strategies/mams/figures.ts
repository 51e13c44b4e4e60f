/** The figures a mams run keeps (in the `decision` event that ends it). */

/** Figures of a mams run (in the `decision` event that ends it). */
export interface MamsFigures {
  turns: number;
  toolCalls: number;
  callsByTurn: number[];
  chunks: number;
  searchCalls: number;
  factsAdded: number;
  factsCorrected: number;
  /** Chunks whose state update changed the plan. */
  planUpdates: number;
  /** State updates that rewrote the memory compressed (it was over its budget). */
  memoryCompressions: number;
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
    factsAdded: 0,
    factsCorrected: 0,
    planUpdates: 0,
    memoryCompressions: 0,
    appendOnlyUpdates: 0,
  };
}
