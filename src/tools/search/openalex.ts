/**
 * OpenAlex search (academic).
 *
 * Followed: OpenAlex API documentation, "Works" (https://docs.openalex.org/api-entities/works),
 * "Search entities", "Filter entities", "Select fields" and "Rate limits and authentication"
 * (the polite pool: a `mailto=` address): `GET https://api.openalex.org/works?search=…&per-page=…
 * &filter=from_publication_date:YYYY-MM-DD,language:xx&select=…&mailto=…`, answered with `{ meta:
 * { count, … }, results: [Work], group_by: [] }`. A Work carries `id` (`https://openalex.org/W…`),
 * `doi` (`https://doi.org/10.…` or null), `title`/`display_name`, `publication_date`
 * (`YYYY-MM-DD`), `authorships: [{ author: { display_name } }]`, `primary_location: {
 * landing_page_url, pdf_url }` and `abstract_inverted_index` (each word with the positions it
 * has in the abstract, or null). Errors come as `{ error, message }` with an HTTP status. In
 * `search`, upper-case AND/OR/NOT and double quotes are query syntax.
 */

import { z } from "zod";
import { fetchJson } from "../http-errors.ts";
import type { ProviderCallContext, SearchRequest, TimeRange } from "../types.ts";
import { type AcademicProvider, type AcademicResult, toAcademicResults } from "./academic-result.ts";
import { endpoint, parseProviderBody, type SearchProviderOptions } from "./provider-http.ts";

/** The public OpenAlex API. */
export const DEFAULT_OPENALEX_BASE_URL = "https://api.openalex.org";
/** OpenAlex serves at most this many results per page. */
export const OPENALEX_MAX_PER_PAGE = 200;
/** Fields asked for (`select`): only what a result needs. */
export const OPENALEX_SELECT =
  "id,doi,title,display_name,publication_date,authorships,primary_location,abstract_inverted_index";

const DAY_MS = 86_400_000;
const RANGE_DAYS: Record<TimeRange, number> = { day: 1, week: 7, month: 30, year: 365 };

/** Options of {@link createOpenAlexProvider}. */
export interface OpenAlexProviderOptions extends SearchProviderOptions {
  /** An address for OpenAlex's polite pool (`mailto=`; OPENALEX_EMAIL). */
  email?: string;
}

const workSchema = z.object({
  id: z.string().nullish(),
  doi: z.string().nullish(),
  title: z.string().nullish(),
  display_name: z.string().nullish(),
  publication_date: z.string().nullish(),
  authorships: z
    .array(z.object({ author: z.object({ display_name: z.string().nullish() }).nullish() }))
    .nullish(),
  primary_location: z
    .object({ landing_page_url: z.string().nullish(), pdf_url: z.string().nullish() })
    .nullish(),
  abstract_inverted_index: z.record(z.string(), z.array(z.number().int().min(0))).nullish(),
});
const openAlexAnswerSchema = z.object({ results: z.array(workSchema) });

/**
 * The abstract an inverted index stands for: each word put at each of its positions, in order.
 * Gaps are skipped; an empty or missing index gives "".
 */
export function abstractFromInvertedIndex(
  index: Record<string, readonly number[]> | null | undefined,
): string {
  if (!index) return "";
  const words: string[] = [];
  for (const [word, positions] of Object.entries(index)) {
    for (const position of positions) {
      if (Number.isInteger(position) && position >= 0 && position < 100_000) words[position] = word;
    }
  }
  return words.filter((w) => w !== undefined).join(" ");
}

/**
 * The `search` text of a query: its words without quotes, parentheses or other punctuation, and
 * AND/OR/NOT in lower case, so no user text is read as OpenAlex query syntax.
 */
export function openAlexSearchText(query: string): string {
  const words = query.match(/[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu) ?? [];
  return words.map((w) => (/^(AND|OR|NOT)$/.test(w) ? w.toLowerCase() : w)).join(" ");
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * An OpenAlex provider. Needs no key; `email` joins the polite pool. URLs prefer the landing
 * page, then the DOI URL, then the OpenAlex page; the snippet is the abstract rebuilt from the
 * inverted index. A time range becomes `from_publication_date`, `language` a `language` filter.
 */
export function createOpenAlexProvider(options: OpenAlexProviderOptions = {}): AcademicProvider {
  const baseUrl = options.baseUrl ?? DEFAULT_OPENALEX_BASE_URL;
  const now = options.now ?? Date.now;
  return {
    name: "openalex",
    endpoint: baseUrl,
    async search(request: SearchRequest, context: ProviderCallContext): Promise<AcademicResult[]> {
      const nowMs = now();
      const params = new URLSearchParams({
        search: openAlexSearchText(request.query) || request.query.replace(/["()]/g, " ").trim(),
        "per-page": String(Math.min(request.topK, OPENALEX_MAX_PER_PAGE)),
        select: OPENALEX_SELECT,
      });
      const filters: string[] = [];
      if (request.timeRange) {
        filters.push(`from_publication_date:${isoDay(nowMs - RANGE_DAYS[request.timeRange] * DAY_MS)}`);
      }
      if (request.language) filters.push(`language:${request.language.slice(0, 2).toLowerCase()}`);
      if (filters.length > 0) params.set("filter", filters.join(","));
      if (options.email) params.set("mailto", options.email);
      const answer = await fetchJson("openalex", context.fetch, `${endpoint(baseUrl, "/works")}?${params}`, {
        method: "GET",
        headers: { accept: "application/json" },
        signal: context.signal,
      });
      const parsed = parseProviderBody("openalex", openAlexAnswerSchema, answer);
      return toAcademicResults(
        parsed.results.map((w) => {
          const landing = w.primary_location?.landing_page_url;
          const doiUrl =
            w.doi && /^https?:\/\//i.test(w.doi) ? w.doi : w.doi ? `https://doi.org/${w.doi}` : null;
          return {
            title: w.display_name ?? w.title,
            url: landing && /^https?:\/\//i.test(landing) ? landing : (doiUrl ?? w.id),
            abstract: abstractFromInvertedIndex(w.abstract_inverted_index),
            published: w.publication_date,
            authors: (w.authorships ?? []).map((a) => a.author?.display_name),
            doi: w.doi,
            pdfUrl: w.primary_location?.pdf_url,
          };
        }),
        nowMs,
        request.topK,
      );
    },
  };
}
