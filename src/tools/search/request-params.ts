/**
 * The request side of a search provider table entry: its parameters in the order they are sent,
 * each a fixed value or a function of the search request, and the helpers for the usual ones
 * (query, result count, time range, language).
 */

import type { SearchRequest, TimeRange } from "../types.ts";

/** What a parameter may be computed from besides the request. */
export interface ParamContext {
  /** The current time in ms (time ranges). */
  nowMs: number;
  /** The provider's most results per request, when it has one. */
  maxResults?: number | undefined;
}

/** A parameter computed from the request (a list: a JSON array, or a repeated URL parameter); undefined leaves it out. */
export type ParamFunction = (
  request: SearchRequest,
  context: ParamContext,
) => string | number | readonly string[] | undefined;

/** A fixed value (sent as is: a string, number, boolean or JSON object) or a computed one. */
export type ParamValue = string | number | boolean | Readonly<Record<string, unknown>> | ParamFunction;

/**
 * A provider's parameters by wire name, in the order they are sent: the query string of a GET,
 * the JSON body of a POST.
 */
export type RequestParams = Readonly<Record<string, ParamValue>>;

/** The query text as given. */
export const queryParam: ParamFunction = (request) => request.query;

/** The result count asked for (`topK`), capped at the provider's `maxResults`. */
export const countParam: ParamFunction = (request, { maxResults }) =>
  maxResults === undefined ? request.topK : Math.min(request.topK, maxResults);

/**
 * The time range as the provider names it (a table of values), or computed from the clock (a
 * function such as a start date); nothing when no range is asked.
 */
export function timeRangeParam(
  values: Readonly<Record<TimeRange, string>> | ((range: TimeRange, nowMs: number) => string),
): ParamFunction {
  return ({ timeRange }, { nowMs }) => {
    if (!timeRange) return undefined;
    return typeof values === "function" ? values(timeRange, nowMs) : values[timeRange];
  };
}

/** The result language, mapped to the provider's code (default: as given); nothing when none. */
export function languageParam(code: (language: string) => string = (language) => language): ParamFunction {
  return ({ language }) => (language ? code(language) : undefined);
}

/** The parameters of one request, in the entry's order, without those computed as undefined. */
export function resolveParams(
  params: RequestParams,
  request: SearchRequest,
  context: ParamContext,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    const resolved = typeof value === "function" ? value(request, context) : value;
    if (resolved !== undefined) out[name] = resolved;
  }
  return out;
}
