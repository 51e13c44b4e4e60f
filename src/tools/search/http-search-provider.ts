/**
 * The one HTTP search provider. A provider is a table entry (see `web-provider-table.ts`): where
 * to ask (endpoint, method, credential), what to send (parameters) and how to read the answer
 * (a zod schema and the result fields); this provider does the rest the same way for every
 * entry: the key check, the request, typed errors for HTTP and network failures, validation of
 * the answer and normalisation of the results.
 */

import type { z } from "zod";
import { DossierError, isDossierError } from "../../core/errors.ts";
import { fetchJson } from "../http-errors.ts";
import type { ProviderPolicy } from "../provider-policy.ts";
import type { ProviderCallContext, SearchProvider, SearchRequest, SearchResult } from "../types.ts";
import {
  endpoint,
  parseProviderBody,
  type RawResultFields,
  requireKey,
  type SearchProviderOptions,
  toSearchResults,
} from "./provider-http.ts";
import { type RequestParams, resolveParams } from "./request-params.ts";

/**
 * Where the provider reads its credential (the `apiKey` option): a header (with a prefix such as
 * `Bearer `) or a query parameter. `setting` is the variable that holds it; an `optional`
 * credential (a polite-pool address) is sent when set, a required one is checked before any call.
 */
export type ProviderCredential = { setting: string; optional?: boolean } & (
  | { header: string; prefix?: string }
  | { query: string }
);

/** One provider as data: how to ask it and how to read its answer. */
export interface HttpSearchProviderEntry<
  S extends z.ZodType = z.ZodType,
  Raw = RawResultFields,
  R extends SearchResult = SearchResult,
> {
  /** Provider name: the gateway's policy, breaker and cache key, and the prefix of its errors. */
  name: string;
  /** The public base URL. */
  baseUrl: string;
  /** The environment variable that overrides the base URL. */
  baseUrlSetting: string;
  /** No public endpoint: usable only once `baseUrlSetting` names an instance (SearXNG). */
  selfHosted?: boolean;
  method: "GET" | "POST";
  /** Path below the base URL. */
  path: string;
  credential?: ProviderCredential;
  /** Fixed headers besides the credential, `content-type` (POST) and `accept: application/json`. */
  headers?: Readonly<Record<string, string>>;
  /** Most results per request (caps {@link countParam}). */
  maxResults?: number;
  /** Parameters in the order they are sent: query string (GET) or JSON body (POST). */
  params: RequestParams;
  /** Parameters sent in the URL's query string also with a POST (a list repeats the name). */
  urlParams?: RequestParams;
  /** The answer's shape; an answer that does not fit is a PROVIDER_ERROR naming the problem. */
  answer: S;
  /** The answer's results as raw fields, in the provider's order. */
  results(answer: z.infer<S>): readonly Raw[];
  /** Raw fields to at most `limit` results (default: web results, {@link toSearchResults}). */
  normalise?(raws: readonly Raw[], nowMs: number, limit: number): R[];
  /**
   * HTTP statuses that mean the provider is set up wrong, with what to fix: such an answer is
   * PROVIDER_NOT_CONFIGURED with that advice (SearXNG's 403 without the JSON format).
   */
  misconfigured?: Readonly<Partial<Record<number, string>>>;
  /** The gateway's limits for this provider, over its defaults (see PROVIDER_DEFAULTS). */
  policy?: Partial<ProviderPolicy>;
}

/** A provider built from an entry: {@link SearchProvider} with the entry's result type. */
export interface HttpSearchProvider<R extends SearchResult = SearchResult> extends SearchProvider {
  search(request: SearchRequest, context: ProviderCallContext): Promise<R[]>;
}

/** Types an entry's `results` against its `answer` schema (the table's entries are written with it). */
export function defineSearchProvider<
  S extends z.ZodType,
  Raw = RawResultFields,
  R extends SearchResult = SearchResult,
>(entry: HttpSearchProviderEntry<S, Raw, R>): HttpSearchProviderEntry<S, Raw, R> {
  return entry;
}

/** The credential to send, or undefined; a required one that is missing is PROVIDER_NOT_CONFIGURED. */
function credentialValue(
  entry: Pick<HttpSearchProviderEntry, "name" | "credential">,
  apiKey: string | undefined,
): string | undefined {
  const credential = entry.credential;
  if (!credential) return undefined;
  if (credential.optional) return apiKey?.trim() ? apiKey : undefined;
  return requireKey(entry.name, apiKey, credential.setting);
}

function queryString(params: Record<string, unknown>, query = new URLSearchParams()): URLSearchParams {
  for (const [name, value] of Object.entries(params)) {
    if (Array.isArray(value)) for (const item of value) query.append(name, String(item));
    else query.set(name, typeof value === "object" ? JSON.stringify(value) : String(value));
  }
  return query;
}

/** The advice of a status the entry marks as misconfiguration, as PROVIDER_NOT_CONFIGURED. */
function explained(
  entry: Pick<HttpSearchProviderEntry, "name" | "misconfigured">,
  baseUrl: string,
  error: unknown,
): unknown {
  if (!isDossierError(error) || typeof error.details.status !== "number") return error;
  const status = error.details.status;
  const advice = entry.misconfigured?.[status];
  if (!advice) return error;
  return new DossierError(
    "PROVIDER_NOT_CONFIGURED",
    `${entry.name}: HTTP ${status} from ${baseUrl} — ${advice}`,
    {
      retryable: false,
      cause: error,
      details: error.details,
    },
  );
}

/** A provider that asks as `entry` says; `options` give its key, base URL and clock. */
export function createHttpSearchProvider<
  S extends z.ZodType,
  Raw = RawResultFields,
  R extends SearchResult = SearchResult,
>(entry: HttpSearchProviderEntry<S, Raw, R>, options: SearchProviderOptions = {}): HttpSearchProvider<R> {
  const baseUrl = options.baseUrl ?? entry.baseUrl;
  const now = options.now ?? Date.now;
  const normalise =
    entry.normalise ??
    (toSearchResults as unknown as NonNullable<HttpSearchProviderEntry<S, Raw, R>["normalise"]>);
  return {
    name: entry.name,
    endpoint: baseUrl,
    async search(request: SearchRequest, context: ProviderCallContext): Promise<R[]> {
      const key = credentialValue(entry, options.apiKey);
      const nowMs = now();
      const params = resolveParams(entry.params, request, { nowMs, maxResults: entry.maxResults });
      const post = entry.method === "POST";
      const query = post ? new URLSearchParams() : queryString(params);
      if (entry.urlParams) {
        queryString(resolveParams(entry.urlParams, request, { nowMs, maxResults: entry.maxResults }), query);
      }
      const headers: Record<string, string> = {};
      const credential = entry.credential;
      if (key && credential && "header" in credential)
        headers[credential.header] = `${credential.prefix ?? ""}${key}`;
      if (key && credential && "query" in credential) query.set(credential.query, key);
      if (post) headers["content-type"] = "application/json";
      headers.accept = "application/json";
      Object.assign(headers, entry.headers);
      const url = `${endpoint(baseUrl, entry.path)}${query.size > 0 ? `?${query}` : ""}`;
      const answer = await fetchJson(entry.name, context.fetch, url, {
        method: entry.method,
        headers,
        ...(post ? { body: JSON.stringify(params) } : {}),
        signal: context.signal,
      }).catch((error: unknown) => {
        throw explained(entry, baseUrl, error);
      });
      const parsed = parseProviderBody(entry.name, entry.answer, answer);
      return normalise(entry.results(parsed), nowMs, request.topK);
    },
  };
}
