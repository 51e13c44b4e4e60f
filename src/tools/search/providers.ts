/**
 * The web search provider registry: which providers exist (the entries of
 * `web-provider-table.ts`), which setting each needs, and building the configured ones. A provider
 * without its key (a self-hosted one, SearXNG: without its URL) is not built; it is reported with
 * the environment variable to set.
 */

import { DossierError } from "../../core/errors.ts";
import type { SearchProvider } from "../types.ts";
import { baseUrlFromEnv } from "./base-url-env.ts";
import { createHttpSearchProvider, type HttpSearchProviderEntry } from "./http-search-provider.ts";
import type { SearchProviderOptions } from "./provider-http.ts";
import { WEB_SEARCH_PROVIDERS } from "./web-provider-table.ts";

/** The name of a web search provider. */
export type SearchProviderName = keyof typeof WEB_SEARCH_PROVIDERS;
/** Web search providers, in the order the documentation lists them. */
export const SEARCH_PROVIDER_NAMES = Object.keys(WEB_SEARCH_PROVIDERS) as readonly SearchProviderName[];
/** Providers that need an API key. */
export type KeyedSearchProviderName = Exclude<SearchProviderName, "searxng">;

/** How a provider is configured. */
export interface SearchProviderSpec {
  /** The environment variable that must be set for the provider to be usable. */
  setting: string;
  /** The environment variable that overrides the base URL (self-hosted or test endpoints). */
  baseUrlSetting: string;
  create(options: SearchProviderOptions): SearchProvider;
}

function specOf(entry: HttpSearchProviderEntry): SearchProviderSpec {
  return {
    setting: entry.selfHosted || !entry.credential ? entry.baseUrlSetting : entry.credential.setting,
    baseUrlSetting: entry.baseUrlSetting,
    create: (options) => createHttpSearchProvider(entry, options),
  };
}

/** Every provider's settings and factory, from its table entry. */
export const SEARCH_PROVIDER_SPECS = Object.fromEntries(
  SEARCH_PROVIDER_NAMES.map((name) => [name, specOf(WEB_SEARCH_PROVIDERS[name])]),
) as Record<SearchProviderName, SearchProviderSpec>;

/** The provider `name` built from its table entry with `options` (key, base URL, clock). */
export function createSearchProvider(
  name: SearchProviderName,
  options: SearchProviderOptions = {},
): SearchProvider {
  return SEARCH_PROVIDER_SPECS[name].create(options);
}

/** True when `name` is a web search provider. */
export function isSearchProviderName(name: string): name is SearchProviderName {
  return (SEARCH_PROVIDER_NAMES as readonly string[]).includes(name);
}

/**
 * The settings providers are built from; structurally the `search`, `searchKeys` and
 * `searxngUrl` fields of the runtime configuration.
 */
export interface SearchProviderSettings {
  /** Providers in fallback order (DOSSIER_SEARCH). */
  search: readonly string[];
  /** Keys by provider (TAVILY_API_KEY, …). */
  searchKeys: Partial<Record<KeyedSearchProviderName, string | undefined>>;
  /** The SearXNG instance (SEARXNG_URL). */
  searxngUrl?: string | undefined;
}

/** Options of {@link createSearchProviders}. */
export interface CreateSearchProvidersOptions {
  /** Base URLs by provider, over the public defaults (self-hosted endpoints, test servers). */
  providerBaseUrls?: Partial<Record<SearchProviderName, string>>;
  /** Current time for relative ages and time ranges. */
  now?: () => number;
}

/** A provider that was asked for but lacks its setting. */
export interface MissingSearchProvider {
  name: SearchProviderName;
  /** The environment variable to set. */
  setting: string;
}

/** Result of {@link createSearchProviders}. */
export interface SearchProviderSet {
  /** Built providers, in the order asked. */
  providers: SearchProvider[];
  /** Providers asked for but not built, with the variable that would enable each. */
  missing: MissingSearchProvider[];
}

type KeysByName = Partial<Record<string, string | undefined>>;

/** The configured instance of a self-hosted provider (SEARXNG_URL for SearXNG). */
function selfHostedUrl(settings: SearchProviderSettings, name: SearchProviderName): string | undefined {
  return name === "searxng" ? settings.searxngUrl : undefined;
}

/**
 * Builds the providers named in `names` (default: `settings.search`), in that order, skipping
 * repeats. A provider without its key, or SearXNG without a URL, is listed in `missing` instead.
 * An unknown name is an INPUT_INVALID error.
 */
export function createSearchProviders(
  settings: SearchProviderSettings,
  names: readonly string[] = settings.search,
  options: CreateSearchProvidersOptions = {},
): SearchProviderSet {
  const providers: SearchProvider[] = [];
  const missing: MissingSearchProvider[] = [];
  const seen = new Set<string>();
  for (const raw of names) {
    const name = raw.trim().toLowerCase();
    if (!isSearchProviderName(name)) {
      throw new DossierError(
        "INPUT_INVALID",
        `unknown search provider "${raw}" (expected one of ${SEARCH_PROVIDER_NAMES.join(", ")})`,
        { details: { provider: raw } },
      );
    }
    if (seen.has(name)) continue;
    seen.add(name);
    const entry: HttpSearchProviderEntry = WEB_SEARCH_PROVIDERS[name];
    const override = options.providerBaseUrls?.[name];
    const baseUrl = entry.selfHosted ? (override ?? selfHostedUrl(settings, name)) : override;
    const apiKey = entry.credential ? (settings.searchKeys as KeysByName)[name] : undefined;
    if ((entry.selfHosted && !baseUrl) || (entry.credential && !entry.credential.optional && !apiKey)) {
      missing.push({ name, setting: SEARCH_PROVIDER_SPECS[name].setting });
      continue;
    }
    providers.push(
      createHttpSearchProvider(entry, {
        ...(options.now ? { now: options.now } : {}),
        ...(apiKey ? { apiKey } : {}),
        ...(baseUrl ? { baseUrl } : {}),
      }),
    );
  }
  return { providers, missing };
}

/**
 * Base URL overrides from the environment: `TAVILY_BASE_URL`, `EXA_BASE_URL`, `BRAVE_BASE_URL`,
 * `SERPER_BASE_URL`, `JINA_BASE_URL` (SearXNG's URL is SEARXNG_URL, part of the configuration).
 * A value that is not an http(s) URL is a CONFIG_INVALID error naming the variable.
 */
export function searchBaseUrlsFromEnv(
  env: Record<string, string | undefined>,
): Partial<Record<SearchProviderName, string>> {
  const out: Partial<Record<SearchProviderName, string>> = {};
  for (const name of SEARCH_PROVIDER_NAMES) {
    if (WEB_SEARCH_PROVIDERS[name].selfHosted) continue;
    const value = baseUrlFromEnv(env, SEARCH_PROVIDER_SPECS[name].baseUrlSetting);
    if (value) out[name] = value;
  }
  return out;
}
