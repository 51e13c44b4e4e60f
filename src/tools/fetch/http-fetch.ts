/**
 * One guarded HTTP GET: redirects are followed by hand (at most `maxRedirects`), each hop is
 * checked by the SSRF guard before it is requested and again at connect time; the body is
 * streamed and the request aborted as soon as it exceeds `maxBytes`; the whole exchange has a
 * time limit. Every failure is a typed {@link DossierError}.
 */

import type { Dispatcher, fetch as undiciFetch } from "undici";
import { DossierError } from "../../core/errors.ts";
import { parseRetryAfter } from "../../core/retry.ts";
import { type SourceFilter, sourceFilteredError, urlRefusal } from "../source-filter.ts";
import { blockedPortError, checkPort } from "./blocked-ports.ts";
import { checkUrl, createGuardedAgent, type GuardOptions, undici } from "./ssrf-guard.ts";

/** Default size limit of a response body: 10 MB. */
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
/** Default time limit of a whole fetch (all hops and the body). */
export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
/** Default number of redirects followed. */
export const DEFAULT_MAX_REDIRECTS = 5;
/** Default User-Agent header. */
export const DEFAULT_USER_AGENT = "Mozilla/5.0 (compatible; Dossier/0.1; research agent)";

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The fetch function used (undici's, or one a test injects). */
export type HttpFetchFunction = typeof undiciFetch;

/** Options of {@link httpFetch}. */
export interface HttpFetchOptions extends Partial<GuardOptions> {
  /** Body size limit in bytes (default 10 MB). */
  maxBytes?: number;
  /** Time limit of the whole fetch in ms (default 30 s). */
  timeoutMs?: number;
  /** Redirects followed at most (default 5). */
  maxRedirects?: number;
  /** Aborts the fetch (cancellation, the gateway's timeout). */
  signal?: AbortSignal;
  userAgent?: string;
  /**
   * The fetch to use (default undici's). It receives `dispatcher` in its init and must use it,
   * or the connect-time half of the guard is lost.
   */
  fetch?: HttpFetchFunction;
  /**
   * The dispatcher to use (default a guarded agent created for this fetch and closed after). A
   * caller that passes its own should pass one made by `createGuardedAgent`.
   */
  dispatcher?: Dispatcher;
  /**
   * Validators of a copy fetched before: sent as `If-None-Match` / `If-Modified-Since`, and a
   * `304 Not Modified` answer is then returned (status 304, no bytes) instead of thrown.
   */
  conditional?: { etag?: string; lastModified?: string };
  /**
   * The run's source filter: a URL, or a redirect, to a host its domain lists do not allow is
   * refused (SOURCE_FILTERED) before it is requested.
   */
  sourceFilter?: SourceFilter;
}

/** `url` when the source filter allows it; SOURCE_FILTERED (naming the redirect, if one) otherwise. */
function allowedBySource(filter: SourceFilter | undefined, url: URL, redirectedFrom?: URL): URL {
  const reason = urlRefusal(filter, url);
  if (!reason) return url;
  const error = sourceFilteredError(
    url.href,
    redirectedFrom ? `redirect from ${redirectedFrom.href}: ${reason}` : reason,
  );
  if (redirectedFrom) error.details.redirectedFrom = redirectedFrom.href;
  throw error;
}

/** A fetched response. */
export interface HttpFetchResult {
  /** The URL after redirects. */
  finalUrl: string;
  status: number;
  /** Response headers, lower-cased names. */
  headers: Record<string, string>;
  /** The declared `Content-Type` (may lie), or an empty string. */
  contentType: string;
  bytes: Uint8Array;
  /** Every URL redirected to, in order (the last one is `finalUrl`). */
  redirects: string[];
}

/** Fetches `url` with the guard, limits and manual redirects. */
export async function httpFetch(url: string, options: HttpFetchOptions = {}): Promise<HttpFetchResult> {
  const guard: GuardOptions = {
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
    ...(options.resolve ? { resolve: options.resolve } : {}),
    ...(options.isAllowed ? { isAllowed: options.isAllowed } : {}),
  };
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const fetchFn = options.fetch ?? undici().fetch;

  let current = checkPort(allowedBySource(options.sourceFilter, checkUrl(url, guard)));
  if (options.signal?.aborted) throw options.signal.reason;

  const timeout = new AbortController();
  const timer = setTimeout(() => {
    timeout.abort(
      new DossierError("TIMEOUT", `fetch ${current.href}: no complete answer within ${timeoutMs} ms`, {
        retryable: true,
        details: { url: current.href, timeoutMs },
      }),
    );
  }, timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout.signal, options.signal]) : timeout.signal;
  const ownDispatcher = options.dispatcher ? undefined : createGuardedAgent(guard);
  const dispatcher = options.dispatcher ?? ownDispatcher;
  const redirects: string[] = [];

  try {
    for (;;) {
      let response: Response;
      try {
        response = (await fetchFn(current.href, {
          method: "GET",
          redirect: "manual",
          signal,
          dispatcher,
          headers: {
            "user-agent": options.userAgent ?? DEFAULT_USER_AGENT,
            accept: "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5",
            ...(options.conditional?.etag ? { "if-none-match": options.conditional.etag } : {}),
            ...(options.conditional?.lastModified
              ? { "if-modified-since": options.conditional.lastModified }
              : {}),
          },
        })) as unknown as Response;
      } catch (error) {
        throw failure(error, signal, current);
      }

      if (REDIRECT_STATUSES.has(response.status)) {
        await response.body?.cancel().catch(() => undefined);
        const location = response.headers.get("location");
        if (!location) {
          throw new DossierError(
            "PROVIDER_ERROR",
            `fetch ${current.href}: HTTP ${response.status} redirect without a Location`,
            { details: { url: current.href, status: response.status, reason: "redirect-without-location" } },
          );
        }
        if (redirects.length >= maxRedirects) {
          throw new DossierError(
            "PROVIDER_ERROR",
            `fetch ${url}: more than ${maxRedirects} redirects (last to ${location})`,
            { details: { url, redirects, maxRedirects, reason: "too-many-redirects" } },
          );
        }
        let next: URL;
        try {
          next = new URL(location, current);
        } catch (error) {
          throw new DossierError("PROVIDER_ERROR", `fetch ${current.href}: invalid redirect to ${location}`, {
            cause: error,
            details: { url: current.href, location, reason: "invalid-redirect" },
          });
        }
        current = checkPort(allowedBySource(options.sourceFilter, checkUrl(next, guard), current));
        redirects.push(current.href);
        continue;
      }

      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => {
        headers[key.toLowerCase()] = value;
      });
      if (response.status === 304 && options.conditional) {
        await response.body?.cancel().catch(() => undefined);
        return {
          finalUrl: current.href,
          status: 304,
          headers,
          contentType: headers["content-type"] ?? "",
          bytes: new Uint8Array(),
          redirects,
        };
      }
      if (response.status < 200 || response.status > 299) {
        const body = await readLimited(response, 4096, current, signal, true).catch(() => new Uint8Array());
        throw statusError(current.href, response.status, headers, new TextDecoder().decode(body));
      }
      const declared = Number(headers["content-length"]);
      if (Number.isFinite(declared) && declared > maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw tooLarge(current.href, maxBytes, { declaredBytes: declared });
      }
      let bytes: Uint8Array;
      try {
        bytes = await readLimited(response, maxBytes, current, signal, false);
      } catch (error) {
        throw failure(error, signal, current);
      }
      return {
        finalUrl: current.href,
        status: response.status,
        headers,
        contentType: headers["content-type"] ?? "",
        bytes,
        redirects,
      };
    }
  } finally {
    clearTimeout(timer);
    if (ownDispatcher) void ownDispatcher.destroy().catch(() => undefined);
  }
}

/** Reads the body up to `limit` bytes; beyond it, cancels and throws TOO_LARGE (or truncates). */
async function readLimited(
  response: Response,
  limit: number,
  url: URL,
  signal: AbortSignal,
  truncate: boolean,
): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    if (signal.aborted) throw signal.reason;
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > limit) {
      await reader.cancel().catch(() => undefined);
      if (truncate) {
        chunks.push(value.subarray(0, limit - total));
        total = limit;
        break;
      }
      throw tooLarge(url.href, limit, { receivedBytes: total + value.byteLength });
    }
    chunks.push(value);
    total += value.byteLength;
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function tooLarge(url: string, limit: number, extra: Record<string, unknown>): DossierError {
  return new DossierError(
    "TOO_LARGE",
    `fetch ${url}: the body exceeds the size limit of ${limit} bytes (${formatMb(limit)}); stopped reading`,
    { details: { url, limitBytes: limit, ...extra } },
  );
}

function formatMb(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 100) / 100} MB`;
}

/** The typed error of a non-2xx answer. */
export function statusError(
  url: string,
  status: number,
  headers: Record<string, string>,
  body: string,
  nowMs = Date.now(),
): DossierError {
  const retryAfterMs = parseRetryAfter(headers, nowMs);
  const retryable = status >= 500 || status === 429 || status === 408;
  const excerpt = body.replace(/\s+/g, " ").trim().slice(0, 200);
  return new DossierError("PROVIDER_ERROR", `fetch ${url}: HTTP ${status}`, {
    retryable,
    details: {
      url,
      status,
      ...(retryable && retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(excerpt ? { body: excerpt } : {}),
    },
  });
}

/** Turns what a fetch threw into a typed error. */
function failure(error: unknown, signal: AbortSignal, url: URL): unknown {
  if (signal.aborted) return signal.reason;
  if (error instanceof DossierError) return error;
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof DossierError) return cause;
  const inner = (cause ?? error) as { code?: string; message?: string; errors?: { code?: string }[] };
  const code = inner?.code ?? inner?.errors?.[0]?.code;
  const message = inner?.message || (error instanceof Error ? error.message : String(error));
  if (/^bad port$/i.test(message.trim())) return blockedPortError(url);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NODATA" || code === "EAI_FAIL") {
    return new DossierError(
      "NETWORK_ERROR",
      `fetch ${url.href}: DNS lookup of ${url.hostname} failed (${code})`,
      {
        retryable: code === "EAI_AGAIN",
        cause: error,
        details: { url: url.href, hostname: url.hostname, code, reason: "dns" },
      },
    );
  }
  return new DossierError("NETWORK_ERROR", `fetch ${url.href}: ${message}${code ? ` (${code})` : ""}`, {
    retryable: true,
    cause: error,
    details: { url: url.href, code: code ?? null },
  });
}
