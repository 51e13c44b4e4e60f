/**
 * A run's events as Server-Sent Events: `id:` is the event's `seq`, `event:` its type and
 * `data:` the event as JSON. A client that reconnects with `Last-Event-ID` gets only the events
 * after that one. Events are always read from the log (the subscription only wakes the
 * stream), so none is sent twice and none is skipped; the stream ends after `run-end`.
 */

import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { EventLog } from "../store/types.ts";

/** Options of {@link streamRunEvents}. */
export interface RunEventStreamOptions {
  log: EventLog;
  runId: string;
  /** Send events with `seq` greater than this. */
  afterSeq: number;
  /**
   * Whether the run may still produce events: true while it runs here (or in another process,
   * whose log is then polled).
   */
  isLive(): boolean | Promise<boolean>;
  /** Whether this process runs it (its appends wake the stream; otherwise the log is polled). */
  isLocal(): boolean;
  /** Settles when the local run ends (wakes the stream even when no event is appended). */
  settled?: Promise<unknown>;
  /** Comment lines keep an idle stream open this often (ms). */
  keepAliveMs?: number;
  /** How often the log of a run in another process is read (ms). */
  pollMs?: number;
}

/** The `seq` a reconnecting client has seen: `Last-Event-ID`, else `?after=`, else 0. */
export function resumeSeq(c: Context): number {
  const raw = c.req.header("last-event-id") ?? c.req.query("after") ?? "0";
  const n = Number(raw.trim());
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** Streams the events of a run as SSE. */
export function streamRunEvents(c: Context, options: RunEventStreamOptions): Response {
  const { log, runId } = options;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const pollMs = options.pollMs ?? 1000;
  c.header("Cache-Control", "no-cache, no-transform");
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (stream) => {
    let wake: (() => void) | null = null;
    // Set by every wake-up, so an append between reading the log and waiting is not missed.
    let dirty = false;
    const notify = () => {
      dirty = true;
      wake?.();
      wake = null;
    };
    options.settled?.then(notify, notify);
    const unsubscribe = log.subscribe(runId, notify);
    stream.onAbort(notify);
    let last = options.afterSeq;
    try {
      for (;;) {
        dirty = false;
        const live = await options.isLive();
        for (const event of await log.list(runId, { afterSeq: last })) {
          if (stream.aborted) return;
          // Recorded model calls (training data, large) stay out of the live stream.
          if (event.type === "llm-call") {
            last = event.seq;
            continue;
          }
          await stream.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(event) });
          last = event.seq;
          if (event.type === "run-end") return;
        }
        if (!live || stream.aborted) return;
        const local = options.isLocal();
        if (dirty) continue;
        const timedOut = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), local ? keepAliveMs : pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        if (timedOut && local && !stream.aborted) await stream.write(": keep-alive\n\n");
      }
    } finally {
      unsubscribe();
    }
  });
}
