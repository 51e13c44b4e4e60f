/**
 * A provider's base URL override from the environment (e.g. `TAVILY_BASE_URL`, `ARXIV_BASE_URL`):
 * absent or blank is no override; anything but an http(s) URL is a CONFIG_INVALID error naming
 * the variable.
 */

import { DossierError } from "../../core/errors.ts";

/** The http(s) URL in `env[variable]`, or undefined when it is not set. */
export function baseUrlFromEnv(
  env: Record<string, string | undefined>,
  variable: string,
): string | undefined {
  const value = env[variable]?.trim();
  if (!value) return undefined;
  if (!/^https?:\/\//i.test(value) || !URL.canParse(value)) {
    throw new DossierError("CONFIG_INVALID", `invalid ${variable}: "${value}" (expected an http(s) URL)`, {
      details: { setting: variable },
    });
  }
  return value;
}
