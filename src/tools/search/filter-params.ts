/**
 * The source filter (allowed and excluded domains, a start date) as search providers take it:
 * domain lists for APIs that have them, `site:` / `-site:` operators in the query text for
 * those that read search operators, and a start date in each provider's date format, combined
 * with a time range (the later start wins). Whatever a provider does with them, its results are
 * checked against the filter afterwards (`web-search.ts`).
 */

import type { SearchRequest } from "../types.ts";
import type { ParamContext, ParamFunction } from "./request-params.ts";
import { timeRangeStart } from "./time-range.ts";

const DAY_MS = 86_400_000;

/** The allowed domains, for a provider's allow-list parameter; nothing when none. */
export const includeDomainsParam: ParamFunction = ({ sourceFilter }) =>
  sourceFilter?.domains?.length ? sourceFilter.domains : undefined;

/** The excluded domains, for a provider's deny-list parameter; nothing when none. */
export const excludeDomainsParam: ParamFunction = ({ sourceFilter }) =>
  sourceFilter?.excludeDomains?.length ? sourceFilter.excludeDomains : undefined;

/**
 * The query with the filter's domains as search operators: `(site:a OR site:b)` for the allow
 * list (a single `site:a` for one domain), `-site:x` for each excluded one.
 */
export function siteOperatorQuery(request: Pick<SearchRequest, "query" | "sourceFilter">): string {
  const filter = request.sourceFilter;
  const parts = [request.query];
  const allowed = filter?.domains ?? [];
  if (allowed.length === 1) parts.push(`site:${allowed[0]}`);
  if (allowed.length > 1) parts.push(`(${allowed.map((d) => `site:${d}`).join(" OR ")})`);
  for (const d of filter?.excludeDomains ?? []) parts.push(`-site:${d}`);
  return parts.join(" ");
}

/** The query text with `site:` operators for the filter's domains. */
export const siteQueryParam: ParamFunction = (request) => siteOperatorQuery(request);

/**
 * The query with `site:` operators while it stays within a provider's query limits (characters
 * and words); beyond them, the query as given (the results are filtered afterwards all the same).
 */
export function boundedSiteQueryParam(maxChars: number, maxWords: number): ParamFunction {
  return (request) => {
    const query = siteOperatorQuery(request);
    return query.length <= maxChars && query.split(/\s+/).length <= maxWords ? query : request.query;
  };
}

/** The allowed domains as a list of `site` values (Jina's in-site search); nothing when none. */
export const siteListParam: ParamFunction = ({ sourceFilter }) =>
  sourceFilter?.domains?.length ? sourceFilter.domains : undefined;

/**
 * The start (ms) of what the request asks for: the later of its time range's start and the
 * filter's `since` (midnight UTC); undefined when it asks for neither.
 */
export function searchStartMs(request: Pick<SearchRequest, "timeRange" | "sourceFilter">, nowMs: number) {
  const fromRange = request.timeRange ? Date.parse(timeRangeStart(request.timeRange, nowMs)) : undefined;
  const since = request.sourceFilter?.since;
  const fromSince = since ? Date.parse(`${since}T00:00:00Z`) : undefined;
  if (fromRange === undefined) return fromSince;
  if (fromSince === undefined) return fromRange;
  return Math.max(fromRange, fromSince);
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * A provider's date parameter when the request has a start date (`since`), else its time-range
 * parameter as `byRange` computes it: `bySince` gets the later of both starts and now.
 */
export function sinceOrRangeParam(
  bySince: (startMs: number, nowMs: number) => string | undefined,
  byRange: ParamFunction,
): ParamFunction {
  return (request: SearchRequest, context: ParamContext) => {
    if (!request.sourceFilter?.since) return byRange(request, context);
    return bySince(searchStartMs(request, context.nowMs)!, context.nowMs);
  };
}

/** `YYYY-MM-DD` of a start (Tavily's `start_date`). */
export const startDay = (startMs: number) => isoDay(startMs);

/** Brave's custom freshness: `YYYY-MM-DDtoYYYY-MM-DD`, from the start to today. */
export const braveFreshnessRange = (startMs: number, nowMs: number) => `${isoDay(startMs)}to${isoDay(nowMs)}`;

/** Google's (Serper's) custom date range: `cdr:1,cd_min:M/D/YYYY`. */
export function googleDateRange(startMs: number): string {
  const d = new Date(startMs);
  return `cdr:1,cd_min:${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()}`;
}

/**
 * SearXNG's `time_range` covering a start: the narrowest of `day`, `month` and `year` that
 * reaches back to it (widened, never narrowed); none when it is older than a year.
 */
export function searxngRangeCovering(startMs: number, nowMs: number): string | undefined {
  const age = nowMs - startMs;
  if (age <= DAY_MS) return "day";
  if (age <= 28 * DAY_MS) return "month";
  if (age <= 365 * DAY_MS) return "year";
  return undefined;
}
