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
import { type AcademicProvider, type RawPaperFields, toAcademicResults } from "./academic-result.ts";
import { createHttpSearchProvider, defineSearchProvider } from "./http-search-provider.ts";
import type { SearchProviderOptions } from "./provider-http.ts";
import { countParam, type ParamFunction } from "./request-params.ts";
import { timeRangeStartMs } from "./time-range.ts";

/** OpenAlex serves at most this many results per page. */
export const OPENALEX_MAX_PER_PAGE = 200;
/** Fields asked for (`select`): only what a result needs. */
export const OPENALEX_SELECT =
  "id,doi,title,display_name,publication_date,authorships,primary_location,abstract_inverted_index";

/** Options of {@link createOpenAlexProvider}. */
export interface OpenAlexProviderOptions extends Omit<SearchProviderOptions, "apiKey"> {
  /** An address for OpenAlex's polite pool (`mailto=`; OPENALEX_EMAIL). */
  email?: string;
}

const text = z.string().nullish();
const workSchema = z.object({
  id: text,
  doi: text,
  title: text,
  display_name: text,
  publication_date: text,
  authorships: z.array(z.object({ author: z.object({ display_name: text }).nullish() })).nullish(),
  primary_location: z.object({ landing_page_url: text, pdf_url: text }).nullish(),
  abstract_inverted_index: z.record(z.string(), z.array(z.number().int().min(0))).nullish(),
});

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

/** The `filter` of a request: a time range as `from_publication_date`, a language as `language`. */
const filterParam: ParamFunction = (request, { nowMs }) => {
  const filters: string[] = [];
  if (request.timeRange) {
    const from = new Date(timeRangeStartMs(request.timeRange, nowMs)).toISOString().slice(0, 10);
    filters.push(`from_publication_date:${from}`);
  }
  if (request.language) filters.push(`language:${request.language.slice(0, 2).toLowerCase()}`);
  return filters.length > 0 ? filters.join(",") : undefined;
};

/** A Work's paper fields: the URL prefers the landing page, then the DOI URL, then the OpenAlex page. */
function paperOf(work: z.infer<typeof workSchema>): RawPaperFields {
  const landing = work.primary_location?.landing_page_url;
  const doi = work.doi;
  const doiUrl = doi && /^https?:\/\//i.test(doi) ? doi : doi ? `https://doi.org/${doi}` : null;
  return {
    title: work.display_name ?? work.title,
    url: landing && /^https?:\/\//i.test(landing) ? landing : (doiUrl ?? work.id),
    abstract: abstractFromInvertedIndex(work.abstract_inverted_index),
    published: work.publication_date,
    authors: (work.authorships ?? []).map((a) => a.author?.display_name),
    doi,
    pdfUrl: work.primary_location?.pdf_url,
  };
}

/**
 * OpenAlex as a search provider entry. Needs no key; the polite-pool address (OPENALEX_EMAIL)
 * is an optional `mailto` parameter. The snippet is the abstract rebuilt from the inverted
 * index; OpenAlex allows ten requests a second.
 */
export const OPENALEX_PROVIDER = defineSearchProvider({
  name: "openalex",
  baseUrl: "https://api.openalex.org",
  baseUrlSetting: "OPENALEX_BASE_URL",
  method: "GET",
  path: "/works",
  credential: { setting: "OPENALEX_EMAIL", query: "mailto", optional: true },
  maxResults: OPENALEX_MAX_PER_PAGE,
  params: {
    search: ({ query }) => openAlexSearchText(query) || query.replace(/["()]/g, " ").trim(),
    "per-page": countParam,
    select: OPENALEX_SELECT,
    filter: filterParam,
  },
  answer: z.object({ results: z.array(workSchema) }),
  results: ({ results }) => results.map(paperOf),
  normalise: toAcademicResults,
  policy: { ratePerSecond: 10 },
});

/** The public OpenAlex API. */
export const DEFAULT_OPENALEX_BASE_URL = OPENALEX_PROVIDER.baseUrl;

/**
 * An OpenAlex provider. `email` joins the polite pool. A time range becomes
 * `from_publication_date`, `language` a `language` filter.
 */
export function createOpenAlexProvider(options: OpenAlexProviderOptions = {}): AcademicProvider {
  const { email, ...rest } = options;
  return createHttpSearchProvider(OPENALEX_PROVIDER, { ...rest, ...(email ? { apiKey: email } : {}) });
}
