/**
 * The result of an academic search: a {@link SearchResult} (title, landing page URL, the
 * abstract as snippet, publication date) with the paper's authors, DOI and PDF link.
 */

import type { ProviderCallContext, SearchProvider, SearchRequest, SearchResult } from "../types.ts";
import { toSearchResult } from "./provider-http.ts";
import { cleanSnippet, cleanTitle, isHttpUrl } from "./result-text.ts";

/** Longest abstract kept as a snippet, in characters. */
export const MAX_ABSTRACT_CHARS = 1200;
/** Authors kept per paper (the rest are counted in the last entry, `et al.`). */
export const MAX_AUTHORS = 20;

/** One paper found by an academic search. */
export interface AcademicResult extends SearchResult {
  /** Author names in the paper's order (at most {@link MAX_AUTHORS}, then `et al.`). */
  authors: string[];
  /** The DOI as a bare `10.…` name, when known. */
  doi?: string;
  /** A PDF of the paper, when the provider gives one. */
  pdfUrl?: string;
}

/** An academic search provider (arXiv, OpenAlex). */
export interface AcademicProvider extends SearchProvider {
  search(request: SearchRequest, context: ProviderCallContext): Promise<AcademicResult[]>;
}

/** Raw fields of one paper as a provider gives them. */
export interface RawPaperFields {
  title?: string | null;
  url?: string | null;
  abstract?: string | null;
  published?: unknown;
  authors?: readonly (string | null | undefined)[];
  doi?: string | null;
  pdfUrl?: string | null;
}

/** `10.1234/abc` from a DOI or a DOI URL (`https://doi.org/10.1234/abc`); undefined otherwise. */
export function bareDoi(value: string | null | undefined): string | undefined {
  const match = /(?:^|doi\.org\/|^doi:)(10\.\d{4,9}\/\S+)$/i.exec(value?.trim() ?? "");
  return match?.[1];
}

/** One normalised paper, or undefined without a usable http(s) URL. */
export function toAcademicResult(raw: RawPaperFields, nowMs: number): AcademicResult | undefined {
  const base = toSearchResult({ title: raw.title, url: raw.url, published: raw.published }, nowMs);
  if (!base) return undefined;
  const names = (raw.authors ?? []).map((a) => cleanTitle(a)).filter((a) => a !== "");
  const authors =
    names.length > MAX_AUTHORS
      ? [...names.slice(0, MAX_AUTHORS - 1), `et al. (${names.length - MAX_AUTHORS + 1} more)`]
      : names;
  const result: AcademicResult = {
    ...base,
    snippet: cleanSnippet(raw.abstract, MAX_ABSTRACT_CHARS),
    authors,
  };
  const doi = bareDoi(raw.doi);
  if (doi) result.doi = doi;
  const pdf = raw.pdfUrl?.trim();
  if (isHttpUrl(pdf)) result.pdfUrl = pdf;
  return result;
}

/** Normalises a list of papers, dropping unusable ones, keeping at most `limit`. */
export function toAcademicResults(
  raws: readonly RawPaperFields[],
  nowMs: number,
  limit: number,
): AcademicResult[] {
  const out: AcademicResult[] = [];
  for (const raw of raws) {
    const result = toAcademicResult(raw, nowMs);
    if (result) out.push(result);
    if (out.length >= limit) break;
  }
  return out;
}

/** A paper with only its documented fields, as the CLI's `--json` and the HTTP API give it. */
export function plainPaper({ title, url, snippet, publishedAt, authors, doi, pdfUrl }: AcademicResult) {
  return {
    title,
    url,
    snippet,
    ...(publishedAt ? { publishedAt } : {}),
    authors,
    ...(doi ? { doi } : {}),
    ...(pdfUrl ? { pdfUrl } : {}),
  };
}
