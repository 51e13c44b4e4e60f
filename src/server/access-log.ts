/**
 * The server's access log: one JSON line per request, written when the response has ended (an
 * event stream when it closes), with a request id (also sent as `X-Request-Id`), the method,
 * the route as registered that answered (`/v1/runs/:id`; `/v1/*` when the token check refused
 * the request; never the path as sent, so no run id, sign-in code or query string), the status, the duration in milliseconds and, when the client went away first,
 * `aborted`. Headers are never read into it: no token, cookie or Authorization value can appear.
 */

import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import type { ServerResponse } from "node:http";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { DossierError } from "../core/errors.ts";

/** One line of the access log. */
export interface AccessLogEntry {
  ts: string;
  type: "access";
  /** The request id, as sent in `X-Request-Id`. */
  id: string;
  method: string;
  /** The route as registered that answered (`/v1/runs/:id`), `/*` for a catch-all or a check. */
  route: string;
  status: number;
  durationMs: number;
  /** True when the client closed the connection before the response ended. */
  aborted?: true;
}

/** Where access log lines go. */
export interface AccessLogSink {
  /** Writes one line (without its newline). */
  write(line: string): void;
  /** Flushes and closes (a file); idempotent. */
  close(): Promise<void>;
}

/** The response header that carries the request id. */
export const REQUEST_ID_HEADER = "X-Request-Id";

/**
 * The access-log target of `dossier serve`: `stderr` (the default), `off`, or a file path
 * (appended to, created readable by its owner only).
 */
export function openAccessLog(target: string, stderr: (text: string) => void): AccessLogSink | null {
  const value = target.trim();
  if (value === "off" || value === "none" || value === "false") return null;
  if (value === "stderr" || value === "-" || value === "on" || value === "true") {
    return { write: (line) => stderr(`${line}\n`), close: async () => {} };
  }
  if (value === "")
    throw new DossierError("INPUT_INVALID", "--access-log expects stderr, off or a file path");
  const stream = createWriteStream(value, { flags: "a", mode: 0o600 });
  let failed: Error | null = null;
  stream.on("error", (error) => {
    failed ??= error;
  });
  let closing: Promise<void> | null = null;
  return {
    write: (line) => {
      if (!failed) stream.write(`${line}\n`);
    },
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        stream.end(() => resolve());
      })),
  };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Middleware that writes one {@link AccessLogEntry} per request to `sink`. Put it first. */
export function accessLog(sink: AccessLogSink): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const id = randomUUID();
    const method = c.req.method;
    let logged = false;
    const log = (status: number, aborted: boolean, route: string) => {
      if (logged) return;
      logged = true;
      const entry: AccessLogEntry = {
        ts: new Date().toISOString(),
        type: "access",
        id,
        method,
        route,
        status,
        durationMs: round(performance.now() - started),
        ...(aborted ? { aborted: true as const } : {}),
      };
      sink.write(JSON.stringify(entry));
    };
    await next();
    try {
      c.res.headers.set(REQUEST_ID_HEADER, id);
    } catch {
      // A response with immutable headers: copy it.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set(REQUEST_ID_HEADER, id);
    }
    const route = routePath(c);
    // On Node the response is logged when it has really ended (an event stream when it closes).
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (outgoing && typeof outgoing.once === "function") {
      const done = () => log(outgoing.statusCode, !outgoing.writableFinished, route);
      // A client gone before the answer was ready: nothing more will be written.
      if (outgoing.destroyed) log(c.res.status, true, route);
      else outgoing.once("close", done);
    } else {
      log(c.res.status, false, route);
    }
  };
}
