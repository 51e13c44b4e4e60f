/**
 * One delivery attempt: a POST of the signed body through the SSRF-guarded agent (the address
 * connected to is the one checked), no redirect followed (a 3xx is a failure, as the
 * specification advises), at most `maxResponseBytes` of the answer read, and the whole exchange
 * bounded by `timeoutMs`. It never throws: what happened comes back as a {@link SendResult}.
 */

import type { Dispatcher } from "undici";
import { DossierError } from "../core/errors.ts";
import { parseRetryAfter } from "../core/retry.ts";
import { stripControlChars } from "../core/terminal-text.ts";
import { createGuardedAgent, type GuardOptions, undici } from "../tools/fetch/ssrf-guard.ts";
import { checkedUrl } from "./urls.ts";

/** How much of a receiver's answer is read, by default (the rest is not waited for). */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of a failed answer's body is kept in the attempt's error. */
const EXCERPT_CHARS = 200;

/** Options of {@link sendWebhook}. */
export interface SendOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  guard: GuardOptions;
  maxResponseBytes?: number;
  /** Aborts the attempt (the process is leaving). */
  signal?: AbortSignal;
  /** A dispatcher made by `createGuardedAgent` (default: one for this attempt, closed after). */
  dispatcher?: Dispatcher;
  now?: () => number;
}

/** What one attempt came to. */
export interface SendResult {
  /** Answered 2xx. */
  ok: boolean;
  /** The receiver's status, or null when none came. */
  status: number | null;
  /** Why it failed (plain text, at most a line), or null. */
  error: string | null;
  /** The receiver's `Retry-After`, in ms. */
  retryAfterMs?: number;
  durationMs: number;
}

/** Sends one attempt. */
export async function sendWebhook(options: SendOptions): Promise<SendResult> {
  const now = options.now ?? Date.now;
  const started = now();
  const done = (result: Omit<SendResult, "durationMs">): SendResult => ({
    ...result,
    durationMs: Math.max(0, now() - started),
  });
  let url: string;
  try {
    url = checkedUrl(options.url, options.guard);
  } catch (error) {
    return done({ ok: false, status: null, error: messageOf(error) });
  }
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const own = options.dispatcher
    ? undefined
    : createGuardedAgent({ ...options.guard, connectTimeoutMs: options.timeoutMs });
  try {
    const response = (await undici().fetch(url, {
      method: "POST",
      headers: options.headers,
      body: options.body,
      redirect: "manual",
      signal,
      dispatcher: options.dispatcher ?? own,
    })) as unknown as Response;
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      headers[key.toLowerCase()] = value;
    });
    const text = await readSome(response, options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
    const status = response.status;
    if (status >= 200 && status <= 299) return done({ ok: true, status, error: null });
    const retryAfterMs = parseRetryAfter(headers, now());
    const error =
      status >= 300 && status <= 399
        ? `HTTP ${status}: redirects are not followed${headers.location ? ` (to ${excerpt(headers.location)})` : ""}; give the final URL`
        : `HTTP ${status}${text ? `: ${excerpt(text)}` : ""}`;
    return done({ ok: false, status, error, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  } catch (error) {
    if (timeout.aborted) {
      return done({ ok: false, status: null, error: `no answer within ${options.timeoutMs} ms` });
    }
    if (options.signal?.aborted)
      return done({ ok: false, status: null, error: "stopped: the process is leaving" });
    return done({ ok: false, status: null, error: messageOf(error) });
  } finally {
    if (own) void own.destroy().catch(() => undefined);
  }
}

/** Reads at most `limit` bytes of the answer as text, then stops reading. */
async function readSome(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit));
}

/** One line of plain text, at most {@link EXCERPT_CHARS} characters. */
function excerpt(text: string): string {
  return stripControlChars(text).replace(/\s+/g, " ").trim().slice(0, EXCERPT_CHARS);
}

/** The message of what an attempt threw (the connect-time guard's refusal included). */
function messageOf(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof DossierError) return excerpt(cause.message);
  if (error instanceof DossierError) return excerpt(error.message);
  const inner = (cause ?? error) as { code?: string; message?: string };
  const message = inner?.message || (error instanceof Error ? error.message : String(error));
  return excerpt(`${message}${inner?.code ? ` (${inner.code})` : ""}`);
}
