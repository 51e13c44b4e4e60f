/**
 * How a run ended, read from the store alone: its record, and its report's Markdown from the
 * paths of its last `report-ready` event. What a worker answers for a run it did not execute
 * itself, and what an enqueuer reads when the queue lost the run's job.
 */

import { readFileSync } from "node:fs";
import type { RunRecord } from "../core/run.ts";
import type { Store } from "../store/types.ts";

/** A run's outcome as the store holds it. */
export interface StoredOutcome {
  record: RunRecord;
  markdown: string | null;
  paths: string[];
}

/** The outcome of `record` (its report's Markdown when the file can be read here). */
export async function storedOutcome(store: Store, record: RunRecord): Promise<StoredOutcome> {
  const ready = (await store.events.list(record.id, { types: ["report-ready"] })).at(-1);
  const paths = ready?.type === "report-ready" ? (ready.paths ?? []) : [];
  const md = paths.find((p) => p.endsWith(".md"));
  let markdown: string | null = null;
  try {
    markdown = md ? readFileSync(md, "utf8") : null;
  } catch {
    markdown = null;
  }
  return { record, markdown, paths };
}
