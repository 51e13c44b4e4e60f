/**
 * The source filter of a run made from another run — a refresh of a report, a follow-up
 * question about a run: the earlier run's filter (as its options keep it), each part of it
 * (`domains`, `excludeDomains`, `since`) replaced by the one given for the new run, if any. An
 * empty list given lifts that list. A report written only from some domains is therefore
 * refreshed from the same ones, unless asked otherwise.
 */

import { DossierError } from "../core/errors.ts";
import {
  isActiveFilter,
  type SourceFilter,
  type SourceFilterInput,
  sourceFilterSchema,
} from "../tools/source-filter.ts";

/** `value` as a checked filter, or INPUT_INVALID naming `what` and the field. */
function checked(value: unknown, what: string): SourceFilter {
  const parsed = sourceFilterSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length ? `.${issue.path.join(".")}` : "";
  throw new DossierError("INPUT_INVALID", `${what}${field}: ${issue.message}`);
}

/**
 * The filter a run made from the run whose options are `parentOptions` applies: its filter with
 * each part `given` names replaced; undefined when neither has one (the configured default then
 * applies, as to any run). INPUT_INVALID when `given` is not a filter, or when the result lists a
 * domain as both allowed and excluded (the message says which run's list it came from).
 */
export function inheritedSourceFilter(
  parentOptions: Readonly<Record<string, unknown>>,
  given: SourceFilterInput | undefined,
  parentLabel = "the earlier run",
): SourceFilter | undefined {
  const own = given === undefined ? undefined : checked(given, "sourceFilter");
  const stored = parentOptions.sourceFilter;
  // A stored filter that no longer parses (a future-dated bound cannot be stored) is not inherited.
  const parsed = stored === undefined ? undefined : sourceFilterSchema.safeParse(stored);
  const parent = parsed?.success && isActiveFilter(parsed.data) ? parsed.data : undefined;
  if (!parent) return own;
  if (!own) return parent;
  return checked({ ...parent, ...own }, `sourceFilter (with the filter of ${parentLabel})`);
}
