/**
 * A batch's events as Server-Sent Events: `id:` is the event's `seq`, `event:` its type and
 * `data:` the event as JSON. A client that reconnects with `Last-Event-ID` (or `?after=`) gets
 * only the events after that one; the stream ends after `batch-end`, and comment lines keep an
 * idle stream open.
 */

import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { BatchEventLog } from "./batch-events.ts";

/** Streams the events of `log` with `seq` greater than `afterSeq`. */
export function streamBatchEvents(
  c: Context,
  log: BatchEventLog,
  options: { afterSeq: number; keepAliveMs?: number },
): Response {
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  c.header("Cache-Control", "no-cache, no-transform");
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (stream) => {
    let wake: (() => void) | null = null;
    // Set by every append, so one made between reading the log and waiting is not missed.
    let dirty = false;
    const notify = () => {
      dirty = true;
      wake?.();
      wake = null;
    };
    const unsubscribe = log.subscribe(notify);
    stream.onAbort(notify);
    let last = options.afterSeq;
    try {
      for (;;) {
        dirty = false;
        for (const event of log.after(last)) {
          if (stream.aborted) return;
          await stream.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(event) });
          last = event.seq;
          if (event.type === "batch-end") return;
        }
        if (stream.aborted) return;
        if (dirty) continue;
        const timedOut = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), keepAliveMs);
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        if (timedOut && !stream.aborted) await stream.write(": keep-alive\n\n");
      }
    } finally {
      unsubscribe();
    }
  });
}
