/**
 * `--option key=value` (repeatable) of `dossier research` and `dossier train rollouts`: any
 * option of the chosen strategy. A value is read as JSON when it parses (numbers, true/false,
 * objects, arrays), else as text; an option the strategy's schema types as text is always read
 * as text. The strategy's schema checks the result before anything runs.
 */

import type { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { optionProperties, takesText } from "../../runtime/strategy-option-schema.ts";

/** Help text of `--option`. */
export const OPTION_FLAG_HELP =
  "a strategy option, repeatable: any option of the strategy (see dossier strategies), e.g. --option protocol=native; the value is read as JSON when it parses (numbers, true/false, objects, arrays), else as text; giving an option both by --option and by its own flag is an error";

/** Collects repeated `--option` values (commander's argument parser). */
export function collectOption(value: string, all: string[]): string[] {
  return [...all, value];
}

/** The options of `key=value` pairs; `schema` (the strategy's options schema) keeps its text options text. */
export function optionFlagValues(pairs: readonly string[], schema?: z.ZodType): Record<string, unknown> {
  const properties = schema ? optionProperties(schema) : {};
  const options: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    const key = pair.slice(0, Math.max(at, 0)).trim();
    if (at < 1 || !key) throw new DossierError("INPUT_INVALID", `--option takes key=value, got "${pair}"`);
    if (Object.hasOwn(options, key))
      throw new DossierError("INPUT_INVALID", `--option ${key} is given more than once`);
    const raw = pair.slice(at + 1);
    options[key] = takesText(properties[key]) ? raw : jsonOrText(raw);
  }
  return options;
}

function jsonOrText(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * Refuses an option set both by its own flag and by `--option`: `byFlag` holds each dedicated
 * flag, the option it sets and its value (undefined when not given).
 */
export function refuseTwice(
  byFlag: readonly (readonly [flag: string, key: string, value: unknown])[],
  byOption: Record<string, unknown>,
): void {
  for (const [flag, key, value] of byFlag) {
    if (value !== undefined && Object.hasOwn(byOption, key))
      throw new DossierError(
        "INPUT_INVALID",
        `${flag} and --option ${key}=… both set the strategy option ${key}: give one`,
      );
  }
}
