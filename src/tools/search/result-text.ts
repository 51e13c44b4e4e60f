/**
 * Normalising the text fields of search results: providers return titles and snippets with HTML
 * tags and entities (Brave wraps matches in `<strong>`), of any length, and dates in several
 * shapes (ISO, RFC 1123, "Jan 5, 2024", "3 days ago"). These helpers turn them into plain text
 * and ISO dates.
 */

import { isoDate } from "../../core/clock.ts";

/** Longest snippet kept, in characters. */
export const MAX_SNIPPET_CHARS = 500;
/** Longest title kept, in characters. */
export const MAX_TITLE_CHARS = 300;

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  middot: "·",
  copy: "©",
  reg: "®",
  trade: "™",
};

/** Decodes HTML character references (named ones in common use, decimal and hex). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code =
        ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** Plain text of a fragment: tags removed, entities decoded, whitespace collapsed. */
export function plainText(value: string | null | undefined): string {
  if (!value) return "";
  const withoutTags = value
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<br\s*\/?>/gi, " ")
    .replace(/<\/?[a-z][^<>]*>/gi, "");
  return decodeEntities(withoutTags).replace(/\s+/g, " ").trim();
}

/** Cuts `text` to at most `max` characters, at a word boundary when one is near, adding `…`. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** A snippet as Dossier keeps it: plain text, at most {@link MAX_SNIPPET_CHARS} characters. */
export function cleanSnippet(value: string | null | undefined, max = MAX_SNIPPET_CHARS): string {
  return truncate(plainText(value), max);
}

/** A title as Dossier keeps it: plain text, at most {@link MAX_TITLE_CHARS} characters. */
export function cleanTitle(value: string | null | undefined): string {
  return truncate(plainText(value), MAX_TITLE_CHARS);
}

const RELATIVE_UNITS_MS: Record<string, number> = {
  minute: 60_000,
  min: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
  year: 365 * 86_400_000,
};

function pad2(n: number): string {
  return String(n).padStart(2, "0");
}

/**
 * A provider's publication date as an ISO string, or undefined when it cannot be read.
 *
 * - `2024-01-15` stays as is;
 * - a date with a time (`2024-01-15T10:30:00`, `Mon, 15 Jan 2024 10:30:00 GMT`) becomes a full
 *   ISO datetime; a time without a zone is taken as UTC;
 * - a date without a time (`Jan 15, 2024`, `January 15, 2024`) becomes `YYYY-MM-DD`;
 * - a relative age (`3 days ago`, `an hour ago`) becomes the `YYYY-MM-DD` it points to from
 *   `nowMs` (months count 30 days, years 365).
 */
export function toPublishedAt(value: unknown, nowMs: number): string | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (!text) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return Number.isNaN(Date.parse(text)) ? undefined : text;

  const relative = /^(an?|\d+)\s+(minute|min|hour|day|week|month|year)s?\s+ago$/i.exec(text);
  if (relative) {
    const count = /^an?$/i.test(relative[1]!) ? 1 : Number(relative[1]);
    const unit = RELATIVE_UNITS_MS[relative[2]!.toLowerCase()]!;
    return isoDate(nowMs - count * unit);
  }

  const isoNoZone = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text);
  const ms = Date.parse(isoNoZone ? `${text.replace(" ", "T")}Z` : text);
  if (Number.isNaN(ms)) return undefined;
  if (/\d{1,2}:\d{2}/.test(text)) return new Date(ms).toISOString();
  // A calendar date without a time: Date.parse read it as local midnight; keep that calendar day.
  const local = new Date(ms);
  return `${local.getFullYear()}-${pad2(local.getMonth() + 1)}-${pad2(local.getDate())}`;
}

/** True for absolute http(s) URLs, the only result URLs Dossier keeps. */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== "string" || !URL.canParse(value)) return false;
  const protocol = new URL(value).protocol;
  return protocol === "http:" || protocol === "https:";
}
