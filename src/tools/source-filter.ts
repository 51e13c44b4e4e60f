/**
 * A run's source filter: which web sources it may use. An allow list of domains (`domains`), a
 * deny list (`excludeDomains`) and a recency bound (`since`, a calendar date). A domain covers
 * itself and every host below it (`example.org` covers `www.example.org` and `a.b.example.org`,
 * never `badexample.org`); domains and hosts are compared in their ASCII (punycode) form, lower
 * case, so `bücher.de` and `xn--bcher-kva.de` are one domain. Search providers get the filter as
 * their own parameters where they have them, and every result is checked again afterwards; page
 * fetches refuse a URL (or a redirect) to a host the filter does not allow before connecting.
 * Local documents are never filtered by domain.
 */

import { domainToASCII } from "node:url";
import { z } from "zod";
import { DossierError } from "../core/errors.ts";

/** Most domains in each list (as Perplexity's search API allows). */
export const MAX_FILTER_DOMAINS = 20;

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * `domain` in its ASCII form (IDN labels as punycode, lower case, without a trailing dot), or
 * undefined when it is not a host name: a URL, a port, a path, an IP address or an empty label
 * is not one.
 */
export function asciiDomain(domain: string): string | undefined {
  const trimmed = domain.trim().replace(/\.$/, "");
  if (!trimmed || /[/:@?#\s\\*]/.test(trimmed)) return undefined;
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (!ascii || ascii.length > 253) return undefined;
  const labels = ascii.split(".");
  if (!labels.every((label) => LABEL.test(label))) return undefined;
  // The last label of a host name is never all digits (that is an IPv4 address).
  if (/^\d+$/.test(labels.at(-1)!)) return undefined;
  return ascii;
}

const HOST_NAME_HINT = "expected e.g. example.org, without scheme, port or path";

const domainList = () =>
  z
    .array(
      z.string().refine((d) => asciiDomain(d) !== undefined, {
        error: (issue) => `"${String(issue.input)}" is not a host name (${HOST_NAME_HINT})`,
      }),
    )
    .max(MAX_FILTER_DOMAINS, `at most ${MAX_FILTER_DOMAINS} domains`);

/** True for a YYYY-MM-DD string naming a real day. */
function isCalendarDate(value: string): boolean {
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** Today's date where it is latest on Earth (UTC+14): a `since` after it is in the future everywhere. */
function latestToday(): string {
  return new Date(Date.now() + 14 * 3_600_000).toISOString().slice(0, 10);
}

/**
 * The source filter as a request gives it, checked without being changed (the API's and MCP's
 * input schema: no transform, so it has a JSON Schema): at most 20 host names a list, none in
 * both lists (compared in ASCII form), a calendar date not in the future.
 */
export const sourceFilterInputSchema = z
  .strictObject({
    /** Allow list: only these domains (and hosts below them) are used. At most 20. */
    domains: domainList()
      .optional()
      .describe("use only web sources on these domains and the hosts below them (at most 20 host names)"),
    /** Deny list: these domains (and hosts below them) are never used. At most 20. */
    excludeDomains: domainList()
      .optional()
      .describe("never use web sources on these domains or the hosts below them (at most 20 host names)"),
    /** Only sources published on or after this day (YYYY-MM-DD, not in the future). */
    since: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD")
      .refine(isCalendarDate, "not a calendar date (expected YYYY-MM-DD)")
      .refine((day) => day <= latestToday(), "the date is in the future")
      .optional()
      .describe("drop web results known to be published before this day (YYYY-MM-DD)"),
  })
  .superRefine((filter, ctx) => {
    const allowed = new Set((filter.domains ?? []).map(asciiDomain));
    const both = filter.excludeDomains?.find((d) => allowed.has(asciiDomain(d)));
    if (both !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["excludeDomains"],
        message: `"${both}" is both allowed (domains) and excluded (excludeDomains)`,
      });
    }
  });

const asciiList = (list: readonly string[] | undefined) =>
  list === undefined ? undefined : [...new Set(list.map((d) => asciiDomain(d)!))];

/** The source filter as a request gives it, checked; domains come out in ASCII form, deduplicated. */
export const sourceFilterSchema = sourceFilterInputSchema.transform((filter) => {
  const domains = asciiList(filter.domains);
  const excludeDomains = asciiList(filter.excludeDomains);
  return {
    ...(domains ? { domains } : {}),
    ...(excludeDomains ? { excludeDomains } : {}),
    ...(filter.since ? { since: filter.since } : {}),
  };
});

/** A checked source filter (domains in ASCII form). */
export type SourceFilter = z.output<typeof sourceFilterSchema>;
/** A source filter as given. */
export type SourceFilterInput = z.input<typeof sourceFilterSchema>;

/** True when the filter restricts anything. */
export function isActiveFilter(filter: SourceFilter | undefined): filter is SourceFilter {
  return Boolean(filter && (filter.domains?.length || filter.excludeDomains?.length || filter.since));
}

/** The filter's domain lists alone (what a page fetch depends on), or undefined when it has none. */
export function domainRules(filter: SourceFilter | undefined): SourceFilter | undefined {
  if (!filter || !(filter.domains?.length || filter.excludeDomains?.length)) return undefined;
  return {
    ...(filter.domains?.length ? { domains: filter.domains } : {}),
    ...(filter.excludeDomains?.length ? { excludeDomains: filter.excludeDomains } : {}),
  };
}

/** True when `host` (ASCII) is `domain` or below it. */
export function hostUnder(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** Why a host is refused, or undefined when the filter allows it. */
export function hostRefusal(filter: SourceFilter | undefined, hostname: string): string | undefined {
  if (!filter) return undefined;
  const host = asciiDomain(hostname.replace(/^\[|\]$/g, "")) ?? hostname.toLowerCase();
  const denied = filter.excludeDomains?.find((d) => hostUnder(host, d));
  if (denied) return `${host} is under the excluded domain ${denied}`;
  if (filter.domains?.length && !filter.domains.some((d) => hostUnder(host, d))) {
    return `${host} is not under an allowed domain (${filter.domains.join(", ")})`;
  }
  return undefined;
}

/** Why `url` is refused, or undefined when the filter allows it (a URL that does not parse is refused). */
export function urlRefusal(filter: SourceFilter | undefined, url: string | URL): string | undefined {
  if (!domainRules(filter)) return undefined;
  let hostname: string;
  try {
    hostname = (typeof url === "string" ? new URL(url) : url).hostname;
  } catch {
    return "the URL does not parse";
  }
  return hostRefusal(filter, hostname);
}

/** The SOURCE_FILTERED error of a refused URL: not retryable, naming the rule. */
export function sourceFilteredError(url: string, reason: string): DossierError {
  return new DossierError("SOURCE_FILTERED", `${url}: refused by the run's source filter (${reason})`, {
    retryable: false,
    details: { url, reason },
  });
}

/** Throws SOURCE_FILTERED when the filter refuses `url`; returns it otherwise. */
export function checkSourceUrl<U extends string | URL>(filter: SourceFilter | undefined, url: U): U {
  const reason = urlRefusal(filter, url);
  if (reason) throw sourceFilteredError(String(url), reason);
  return url;
}

/** True when a `publishedAt` (ISO date or datetime) is known and before `since`. */
export function publishedBefore(publishedAt: string | undefined, since: string | undefined): boolean {
  if (!since || !publishedAt) return false;
  const ms = Date.parse(publishedAt);
  return !Number.isNaN(ms) && ms < Date.parse(`${since}T00:00:00Z`);
}

/**
 * The results the filter keeps: those whose URL's host it allows and, with `since`, those whose
 * known publication date is not before it (results without a date are kept).
 */
export function filterSources<R extends { url: string; publishedAt?: string | undefined }>(
  results: readonly R[],
  filter: SourceFilter | undefined,
): R[] {
  if (!isActiveFilter(filter)) return [...results];
  return results.filter((r) => !urlRefusal(filter, r.url) && !publishedBefore(r.publishedAt, filter.since));
}

/** One sentence saying which filters a run applied, for its report; empty when none. */
export function describeSourceFilter(filter: SourceFilter | undefined): string {
  if (!isActiveFilter(filter)) return "";
  const parts: string[] = [];
  if (filter.domains?.length) parts.push(`only the domains ${filter.domains.join(", ")}`);
  if (filter.excludeDomains?.length) parts.push(`excluding ${filter.excludeDomains.join(", ")}`);
  if (filter.since) parts.push(`only sources published since ${filter.since} (where the date is known)`);
  return `Web sources were filtered: ${parts.join("; ")}.`;
}
