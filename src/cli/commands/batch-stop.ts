/**
 * How `dossier batch` stops on Ctrl-C: the runs under way are asked to cancel, and the command
 * waits for them at most {@link STOP_GRACE_MS}; then it says which runs are still under way (on
 * workers they go on, or end cancelled, without it) and leaves. A second Ctrl-C leaves at once.
 */

import type { BatchResearcher } from "../../runtime/batch.ts";
import type { ResearchHandle } from "../../runtime/research-handle.ts";

/** How long a stopping batch waits for its runs to end (ms). */
export const STOP_GRACE_MS = 10_000;

/** A researcher that remembers which of its runs are under way. */
export function trackedResearcher(inner: BatchResearcher): {
  researcher: BatchResearcher;
  underWay: () => string[];
} {
  const open = new Set<string>();
  const track = (handle: ResearchHandle) => {
    open.add(handle.runId);
    const close = () => open.delete(handle.runId);
    handle.done.then(close, close);
    return handle;
  };
  const runs = inner.runs;
  return {
    researcher: {
      research: (question, options) => track(inner.research(question, options)),
      ...(runs ? { runs: { list: (o) => runs.list(o), resume: (id, o) => track(runs.resume(id, o)) } } : {}),
    },
    underWay: () => [...open],
  };
}

/**
 * Settles as `work` does, or, once `stopping` has aborted and `graceMs` passed without it,
 * resolves with `"gave-up"` (the work goes on unawaited).
 */
export async function untilStoppedOr<T>(
  work: Promise<T>,
  stopping: AbortSignal,
  graceMs = STOP_GRACE_MS,
): Promise<T | "gave-up"> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<"gave-up">((resolve) => {
    const start = () => {
      timer = setTimeout(() => resolve("gave-up"), graceMs);
    };
    if (stopping.aborted) start();
    else stopping.addEventListener("abort", start, { once: true });
  });
  try {
    return await Promise.race([work, gaveUp]);
  } finally {
    clearTimeout(timer);
  }
}
