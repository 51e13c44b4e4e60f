/**
 * The `fetch_page` tool: one URL → clean text. HTML becomes its main content in Markdown, a
 * PDF its text with page markers, plain text and Markdown stay as they are. What the body is
 * comes from sniffing its bytes, not only from the declared type; its charset from detection.
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import type { ToolGateway } from "../gateway.ts";
import { domainRules } from "../source-filter.ts";
import type { ToolResult } from "../types.ts";
import type { PageLink } from "./html-to-markdown.ts";
import type { HttpFetchOptions } from "./http-fetch.ts";
import type { PdfPage } from "./pdf-text.ts";

/** The input of `fetch_page` as a model gives it. */
export const fetchPageInputSchema = z.object({
  url: z.string().min(1).describe("the http or https URL of the page to read"),
});
/** The input of `fetch_page`. */
export type FetchPageInput = z.infer<typeof fetchPageInputSchema>;

/** What kind of document a page was. */
export type PageContentType = "html" | "pdf" | "text" | "markdown";

/** Why a page has no text. */
export type PageReason = "no-text-layer" | "empty";

/** A fetched page as clean text. */
export interface PageContent {
  /** The URL asked for. */
  url: string;
  /** The URL after redirects. */
  finalUrl: string;
  /** Every URL redirected to, in order. */
  redirects: string[];
  title: string;
  contentType: PageContentType;
  /** The `Content-Type` the server declared (may lie); empty when none. */
  declaredContentType: string;
  /** Markdown (HTML, PDF, Markdown) or plain text; for HTML without link URLs or image markup. */
  text: string;
  /** The links of an HTML page's main content (text and absolute URL), kept out of `text`. */
  links?: PageLink[];
  /** PDF pages (1-based). */
  pages?: PdfPage[];
  /** PDF pages without extractable text (scanned, or fonts without a Unicode map), left out of `text`. */
  pagesWithoutText?: number[];
  /** Size of the body in bytes. */
  bytes: number;
  /** Always false: a body over the limit is an error (TOO_LARGE), never silently cut. */
  truncated: false;
  /** Set when `text` is empty: why. */
  reason?: PageReason;
  /** The charset the text was decoded with (not for PDFs). */
  charset?: string;
  /** Publication time the page declares. */
  publishedAt?: string;
  /** The page's declared language. */
  lang?: string;
  /** True when a conditional fetch was answered `304 Not Modified` (no text then). */
  notModified?: boolean;
  /** The answer's `ETag`, when it had one. */
  etag?: string;
  /** The answer's `Last-Modified`, when it had one. */
  lastModified?: string;
}

/** Options of {@link fetchPage}: the HTTP options (guard, limits, test hooks). */
export type FetchPageOptions = HttpFetchOptions;

/** Fetches `url` and extracts its text. Throws typed errors. */
export async function fetchPage(url: string, options: FetchPageOptions = {}): Promise<PageContent> {
  // The fetch pipeline (HTTP with the SSRF guard, sniffing, charsets, HTML extraction) loads
  // on the first page fetched, not with the module.
  const [{ httpFetch }, { sniffContent }, { decodeText }, { htmlToMarkdown }] = await Promise.all([
    import("./http-fetch.ts"),
    import("./sniff.ts"),
    import("./charset.ts"),
    import("./html-to-markdown.ts"),
  ]);
  const response = await httpFetch(url, options);
  const { finalUrl, bytes } = response;
  const sniffed = sniffContent(bytes, response.contentType, finalUrl);
  const base = {
    url,
    finalUrl,
    redirects: response.redirects,
    declaredContentType: sniffed.declared,
    bytes: bytes.byteLength,
    truncated: false as const,
    ...(response.headers.etag ? { etag: response.headers.etag } : {}),
    ...(response.headers["last-modified"] ? { lastModified: response.headers["last-modified"] } : {}),
  };
  if (response.status === 304) {
    return { ...base, title: "", contentType: "text", text: "", notModified: true };
  }

  switch (sniffed.kind) {
    case "pdf": {
      const { pdfToText } = await import("./pdf-text.ts");
      const pdf = await pdfToText(bytes);
      return {
        ...base,
        title: pdf.title || titleFromUrl(finalUrl),
        contentType: "pdf",
        text: pdf.markdown,
        pages: pdf.pages,
        ...(pdf.pagesWithoutText.length ? { pagesWithoutText: pdf.pagesWithoutText } : {}),
        ...(pdf.reason ? { reason: pdf.reason } : {}),
      };
    }
    case "html": {
      const decoded = decodeText(bytes, { contentType: response.contentType, html: true });
      const page = htmlToMarkdown(decoded.text, finalUrl);
      return {
        ...base,
        title: page.title || titleFromUrl(finalUrl),
        contentType: "html",
        text: page.markdown,
        links: page.links,
        charset: decoded.charset,
        ...(page.markdown ? {} : { reason: "empty" as const }),
        ...(page.publishedAt ? { publishedAt: page.publishedAt } : {}),
        ...(page.lang ? { lang: page.lang } : {}),
      };
    }
    case "markdown":
    case "text": {
      const decoded = decodeText(bytes, { contentType: response.contentType });
      const title =
        (sniffed.kind === "markdown" ? markdownTitle(decoded.text) : "") || titleFromUrl(finalUrl);
      return {
        ...base,
        title,
        contentType: sniffed.kind,
        text: decoded.text,
        charset: decoded.charset,
        ...(decoded.text.trim() ? {} : { reason: "empty" as const }),
      };
    }
    case "binary":
      throw new DossierError(
        "UNREADABLE",
        `fetch ${finalUrl}: unsupported content (${sniffed.declared || "binary data"}); only HTML, PDF, text and Markdown are read`,
        { details: { url: finalUrl, contentType: sniffed.declared, reason: "unsupported-content-type" } },
      );
  }
}

/**
 * Runs {@link fetchPage} through the gateway as tool `fetch_page` (provider `http`), so it is
 * rate-limited, retried, cached and recorded, and a failure comes back as a structured
 * `{ ok: false, error }`. When private networks are allowed the cache key says so, so a page
 * fetched under that permission is never served from the cache to a caller without it. A URL
 * the source filter refuses is a SOURCE_FILTERED failure, never requested.
 */
export function fetchPageTool(
  gateway: ToolGateway,
  url: string,
  options: Omit<FetchPageOptions, "signal"> & { fresh?: boolean } = {},
): Promise<ToolResult<PageContent>> {
  const { fresh, ...fetchOptions } = options;
  const conditional = options.conditional;
  const sourceFilter = domainRules(options.sourceFilter);
  return gateway.call({
    tool: "fetch_page",
    provider: "http",
    args: {
      url,
      ...(options.allowPrivateNetwork ? { allowPrivateNetwork: true } : {}),
      ...(conditional ? { conditional } : {}),
      // A page fetched under a source filter is cached apart: a refusal is never skipped by a hit.
      ...(sourceFilter ? { sourceFilter } : {}),
    },
    // A fresh or conditional fetch asks the server again: never answered from the cache.
    ...(fresh || conditional ? { cache: false } : {}),
    run: (signal) => fetchPage(url, { ...fetchOptions, signal }),
    validators: (page) =>
      page.etag || page.lastModified
        ? {
            ...(page.etag ? { etag: page.etag } : {}),
            ...(page.lastModified ? { lastModified: page.lastModified } : {}),
          }
        : undefined,
    note: (page) =>
      [
        page.notModified ? "not modified" : page.contentType,
        page.reason,
        page.redirects.length ? `${page.redirects.length} redirect(s)` : "",
      ]
        .filter(Boolean)
        .join(", "),
  });
}

/** The first level-1 (else any) ATX heading of a Markdown text. */
function markdownTitle(text: string): string {
  const match = /^#\s+(.+?)\s*#*\s*$/m.exec(text) ?? /^#{1,6}\s+(.+?)\s*#*\s*$/m.exec(text);
  return match?.[1]?.trim() ?? "";
}

/** A readable title from a URL: its last path segment, else its host. */
export function titleFromUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const last = parsed.pathname.split("/").filter(Boolean).at(-1);
    if (last) {
      try {
        return decodeURIComponent(last);
      } catch {
        return last;
      }
    }
    return parsed.hostname;
  } catch {
    return url;
  }
}
