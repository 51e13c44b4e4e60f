/**
 * The start of a search's time range, for providers that filter by a date rather than by a
 * named range: counted in whole days (arXiv, OpenAlex) or in calendar units (Exa).
 */

import type { TimeRange } from "../types.ts";

const DAY_MS = 86_400_000;
/** Days a time range spans when counted in whole days: a month is 30, a year 365. */
export const TIME_RANGE_DAYS: Readonly<Record<TimeRange, number>> = { day: 1, week: 7, month: 30, year: 365 };

/** The start (ms) of a time range ending at `nowMs`, counted in whole days ({@link TIME_RANGE_DAYS}). */
export function timeRangeStartMs(range: TimeRange, nowMs: number): number {
  return nowMs - TIME_RANGE_DAYS[range] * DAY_MS;
}

/**
 * The start of a time range ending at `nowMs`, as ISO 8601: a day and a week are 24 h and
 * 7 × 24 h back; a month and a year are one calendar month / year back (UTC).
 */
export function timeRangeStart(range: TimeRange, nowMs: number): string {
  const date = new Date(nowMs);
  switch (range) {
    case "day":
    case "week":
      return new Date(timeRangeStartMs(range, nowMs)).toISOString();
    case "month":
      date.setUTCMonth(date.getUTCMonth() - 1);
      return date.toISOString();
    case "year":
      date.setUTCFullYear(date.getUTCFullYear() - 1);
      return date.toISOString();
  }
}
