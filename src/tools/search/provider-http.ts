/**
 * What every web search provider adapter shares: its options, the endpoint URL, the key check,
 * validating a provider's answer with zod, and turning raw fields into a {@link SearchResult}.
 */

import type { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import type { SearchResult } from "../types.ts";
import { cleanSnippet, cleanTitle, isHttpUrl, toPublishedAt } from "./result-text.ts";

/** Options of every `createXProvider` factory. */
export interface SearchProviderOptions {
  /** The provider's API key (not used by SearXNG). */
  apiKey?: string;
  /** Base URL of the API, for self-hosted instances, proxies and test servers. */
  baseUrl?: string;
  /** Current time in ms, for relative time ranges and ages (default `Date.now`). */
  now?: () => number;
}

/** `baseUrl` (trailing slashes dropped) followed by `path`. */
export function endpoint(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}${path}`;
}

/** The key, or a PROVIDER_NOT_CONFIGURED error naming the variable to set. */
export function requireKey(provider: string, apiKey: string | undefined, setting: string): string {
  if (apiKey && apiKey.trim() !== "") return apiKey;
  throw new DossierError("PROVIDER_NOT_CONFIGURED", `${provider}: no API key; set ${setting}`, {
    details: { provider, setting },
  });
}

/**
 * Validates a provider's JSON answer against `schema`; an answer of the wrong shape is a
 * PROVIDER_ERROR naming the first problem, never a crash.
 */
export function parseProviderBody<S extends z.ZodType>(
  provider: string,
  schema: S,
  body: unknown,
): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.map(String).join(".") : "answer";
  throw new DossierError(
    "PROVIDER_ERROR",
    `${provider}: unexpected answer format (${where}: ${issue?.message ?? "invalid"})`,
    { retryable: false, details: { provider, path: where } },
  );
}

/** Raw fields of one result as a provider gives them. */
export interface RawResultFields {
  title?: string | null;
  url?: string | null;
  snippet?: string | null;
  published?: unknown;
}

/**
 * One normalised result, or undefined when the provider gave no usable http(s) URL. An empty
 * title falls back to the URL.
 */
export function toSearchResult(raw: RawResultFields, nowMs: number): SearchResult | undefined {
  const url = raw.url?.trim();
  if (!isHttpUrl(url)) return undefined;
  const result: SearchResult = {
    title: cleanTitle(raw.title) || url,
    url,
    snippet: cleanSnippet(raw.snippet),
  };
  const publishedAt = toPublishedAt(raw.published, nowMs);
  if (publishedAt) result.publishedAt = publishedAt;
  return result;
}

/** Normalises a list of raw results, dropping unusable ones, keeping at most `limit`. */
export function toSearchResults(
  raws: readonly RawResultFields[],
  nowMs: number,
  limit: number,
): SearchResult[] {
  const out: SearchResult[] = [];
  for (const raw of raws) {
    const result = toSearchResult(raw, nowMs);
    if (result) out.push(result);
    if (out.length >= limit) break;
  }
  return out;
}
