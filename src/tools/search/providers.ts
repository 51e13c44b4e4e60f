/**
 * The web search provider registry: which providers exist, which setting each needs, and
 * building the configured ones. A provider without its key (SearXNG: without its URL) is not
 * built; it is reported with the environment variable to set.
 */

import { DossierError } from "../../core/errors.ts";
import type { SearchProvider } from "../types.ts";
import { baseUrlFromEnv } from "./base-url-env.ts";
import { createBraveProvider } from "./brave.ts";
import { createExaProvider } from "./exa.ts";
import { createJinaProvider } from "./jina.ts";
import type { SearchProviderOptions } from "./provider-http.ts";
import { createSearxngProvider } from "./searxng.ts";
import { createSerperProvider } from "./serper.ts";
import { createTavilyProvider } from "./tavily.ts";

/** Web search providers, in the order the documentation lists them. */
export const SEARCH_PROVIDER_NAMES = ["tavily", "exa", "brave", "serper", "searxng", "jina"] as const;
/** The name of a web search provider. */
export type SearchProviderName = (typeof SEARCH_PROVIDER_NAMES)[number];
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

/** Every provider's settings and factory. */
export const SEARCH_PROVIDER_SPECS: Record<SearchProviderName, SearchProviderSpec> = {
  tavily: { setting: "TAVILY_API_KEY", baseUrlSetting: "TAVILY_BASE_URL", create: createTavilyProvider },
  exa: { setting: "EXA_API_KEY", baseUrlSetting: "EXA_BASE_URL", create: createExaProvider },
  brave: { setting: "BRAVE_API_KEY", baseUrlSetting: "BRAVE_BASE_URL", create: createBraveProvider },
  serper: { setting: "SERPER_API_KEY", baseUrlSetting: "SERPER_BASE_URL", create: createSerperProvider },
  searxng: { setting: "SEARXNG_URL", baseUrlSetting: "SEARXNG_URL", create: createSearxngProvider },
  jina: { setting: "JINA_API_KEY", baseUrlSetting: "JINA_BASE_URL", create: createJinaProvider },
};

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
    const spec = SEARCH_PROVIDER_SPECS[name];
    const override = options.providerBaseUrls?.[name];
    const common = { ...(options.now ? { now: options.now } : {}) };
    if (name === "searxng") {
      const baseUrl = override ?? settings.searxngUrl;
      if (!baseUrl) missing.push({ name, setting: spec.setting });
      else providers.push(spec.create({ ...common, baseUrl }));
      continue;
    }
    const apiKey = settings.searchKeys[name];
    if (!apiKey) {
      missing.push({ name, setting: spec.setting });
      continue;
    }
    providers.push(spec.create({ ...common, apiKey, ...(override ? { baseUrl: override } : {}) }));
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
    if (name === "searxng") continue;
    const value = baseUrlFromEnv(env, SEARCH_PROVIDER_SPECS[name].baseUrlSetting);
    if (value) out[name] = value;
  }
  return out;
}
