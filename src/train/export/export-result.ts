/**
 * What every export returns: the records to write and what it left out, each with its reason,
 * so a caller can say how much of its data went into the file and why the rest did not.
 */

/** Something an export left out. */
export interface ExportSkip {
  runId: string;
  /** The model call, for per-call exports. */
  callId?: string;
  reason: string;
}

/** The records of an export and what it skipped. */
export interface ExportResult<R> {
  records: R[];
  skipped: ExportSkip[];
}
