/**
 * POST /v1/ask as Server-Sent Events, for a client that sends `Accept: text/event-stream`: the
 * answering run's events as they happen (`event:` its type, `data:` the event as JSON; recorded
 * model calls stay out, as on the run event stream), a comment line while nothing happens, then
 * one `answer` event — the JSON body the plain request answers with — or one `error` event
 * (`{ error: { code, message } }`). A request refused before the run makes its first event (bad
 * input, the run limit, an unknown run to follow up on) is an ordinary error response, not a
 * stream. A client that goes away cancels the run (the request's signal).
 */

import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { isDossierError, toDossierError } from "../core/errors.ts";
import type { DossierEvent } from "../core/events.ts";
import { ApiError, apiMessage, errorBody } from "./errors.ts";

/** Whether the request asks for an event stream. */
export function wantsEventStream(c: Context): boolean {
  return (c.req.header("accept") ?? "").toLowerCase().includes("text/event-stream");
}

/** The body of an `error` event. */
function errorOf(error: unknown): ReturnType<typeof errorBody> {
  if (error instanceof ApiError) return errorBody(error.code, error.message);
  if (isDossierError(error)) return errorBody(error.code, apiMessage(error));
  return errorBody("INTERNAL", toDossierError(error).message || "internal error");
}

/**
 * Streams what `answer` does: it is started at once with a function that receives the run's
 * events; its rejection before any event is thrown, so the app answers it as an error.
 */
export async function streamAsk<T>(
  c: Context,
  answer: (onEvent: (event: DossierEvent) => void) => Promise<T>,
  keepAliveMs = 15_000,
): Promise<Response> {
  const pending: DossierEvent[] = [];
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  let started!: () => void;
  const firstEvent = new Promise<void>((resolve) => {
    started = resolve;
  });
  const result = answer((event) => {
    pending.push(event);
    started();
    notify();
  });
  type Outcome = { ok: true; value: T } | { ok: false; error: unknown };
  let outcome: Outcome | null = null;
  const settled = result.then(
    (value) => {
      outcome = { ok: true, value };
    },
    (error: unknown) => {
      outcome = { ok: false, error };
    },
  );
  void settled.then(notify);
  await Promise.race([firstEvent, settled]);
  const early = outcome as Outcome | null;
  if (pending.length === 0 && early && !early.ok) throw early.error;

  c.header("Cache-Control", "no-cache, no-transform");
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (stream) => {
    stream.onAbort(notify);
    for (;;) {
      // Read before the events are sent: every event made before the answer is sent before it.
      const done = outcome as Outcome | null;
      while (pending.length > 0) {
        const event = pending.shift()!;
        if (stream.aborted) return;
        if (event.type === "llm-call") continue;
        await stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
      }
      if (done) {
        if (!stream.aborted)
          await stream.writeSSE(
            done.ok
              ? { event: "answer", data: JSON.stringify(done.value) }
              : { event: "error", data: JSON.stringify(errorOf(done.error)) },
          );
        return;
      }
      if (stream.aborted) return;
      const timedOut = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), keepAliveMs);
        wake = () => {
          clearTimeout(timer);
          resolve(false);
        };
      });
      if (timedOut && !stream.aborted) await stream.write(": keep-alive\n\n");
    }
  });
}
