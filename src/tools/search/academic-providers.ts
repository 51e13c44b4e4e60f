/**
 * The academic search provider registry: arXiv and OpenAlex, neither needing a key, each with a
 * base URL override (`ARXIV_BASE_URL`, `OPENALEX_BASE_URL`) for proxies and test servers.
 */

import { DossierError } from "../../core/errors.ts";
import type { AcademicProvider } from "./academic-result.ts";
import { createArxivProvider } from "./arxiv.ts";
import { baseUrlFromEnv } from "./base-url-env.ts";
import { createOpenAlexProvider, OPENALEX_PROVIDER } from "./openalex.ts";

/** Academic search providers. */
export const ACADEMIC_PROVIDER_NAMES = ["arxiv", "openalex"] as const;
/** The name of an academic search provider. */
export type AcademicProviderName = (typeof ACADEMIC_PROVIDER_NAMES)[number];

/** The environment variable overriding each provider's base URL. */
export const ACADEMIC_BASE_URL_SETTINGS: Record<AcademicProviderName, string> = {
  arxiv: "ARXIV_BASE_URL",
  openalex: OPENALEX_PROVIDER.baseUrlSetting,
};

/** True when `name` is an academic search provider. */
export function isAcademicProviderName(name: string): name is AcademicProviderName {
  return (ACADEMIC_PROVIDER_NAMES as readonly string[]).includes(name);
}

/** The settings academic providers are built from: the `academic` and `openalexEmail` fields of the configuration. */
export interface AcademicProviderSettings {
  /** Providers in fallback order (DOSSIER_ACADEMIC). */
  academic?: readonly string[] | undefined;
  /** OpenAlex polite-pool address (OPENALEX_EMAIL). */
  openalexEmail?: string | undefined;
}

/** Options of {@link createAcademicProviders}. */
export interface CreateAcademicProvidersOptions {
  /** Base URLs by provider, over the public defaults. */
  providerBaseUrls?: Partial<Record<AcademicProviderName, string>>;
  now?: () => number;
}

/**
 * Builds the providers named in `names` (default: `settings.academic`), in that order, skipping
 * repeats. An unknown name is an INPUT_INVALID error.
 */
export function createAcademicProviders(
  settings: AcademicProviderSettings,
  names: readonly string[] = settings.academic ?? [],
  options: CreateAcademicProvidersOptions = {},
): AcademicProvider[] {
  const providers: AcademicProvider[] = [];
  const seen = new Set<string>();
  for (const raw of names) {
    const name = raw.trim().toLowerCase();
    if (!isAcademicProviderName(name)) {
      throw new DossierError(
        "INPUT_INVALID",
        `unknown academic search provider "${raw}" (expected one of ${ACADEMIC_PROVIDER_NAMES.join(", ")})`,
        { details: { provider: raw } },
      );
    }
    if (seen.has(name)) continue;
    seen.add(name);
    const baseUrl = options.providerBaseUrls?.[name];
    const common = { ...(baseUrl ? { baseUrl } : {}), ...(options.now ? { now: options.now } : {}) };
    providers.push(
      name === "arxiv"
        ? createArxivProvider(common)
        : createOpenAlexProvider({
            ...common,
            ...(settings.openalexEmail ? { email: settings.openalexEmail } : {}),
          }),
    );
  }
  return providers;
}

/**
 * Base URL overrides from the environment (`ARXIV_BASE_URL`, `OPENALEX_BASE_URL`). A value that
 * is not an http(s) URL is a CONFIG_INVALID error naming the variable.
 */
export function academicBaseUrlsFromEnv(
  env: Record<string, string | undefined>,
): Partial<Record<AcademicProviderName, string>> {
  const out: Partial<Record<AcademicProviderName, string>> = {};
  for (const name of ACADEMIC_PROVIDER_NAMES) {
    const value = baseUrlFromEnv(env, ACADEMIC_BASE_URL_SETTINGS[name]);
    if (value) out[name] = value;
  }
  return out;
}
