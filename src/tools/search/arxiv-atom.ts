/**
 * Reading the Atom feed the arXiv API answers with (see arxiv.ts for the format followed). The
 * XML is parsed by jsdom's XML parser (namespaces honoured, entities decoded); anything that is
 * not a well-formed Atom feed is a PROVIDER_ERROR.
 */

import { DossierError } from "../../core/errors.ts";

const ATOM = "http://www.w3.org/2005/Atom";
const ARXIV = "http://arxiv.org/schemas/atom";
/** `<id>` prefix of the entry arXiv answers a refused query with. */
const ERROR_ID = /^https?:\/\/arxiv\.org\/api\/errors/i;

/** One `<entry>` of the feed, as text. */
export interface ArxivEntry {
  /** `<id>`: the abs page URL of the paper's current version. */
  id: string;
  /** The abs page (`<link rel="alternate" type="text/html">`), else the id. */
  absUrl: string;
  pdfUrl?: string;
  title: string;
  summary: string;
  published?: string;
  updated?: string;
  /** Author names in the feed's order. */
  authors: string[];
  doi?: string;
  primaryCategory?: string;
}

/** A parsed feed: its entries, or the API's error message. */
export interface ArxivFeed {
  entries: ArxivEntry[];
  totalResults?: number;
  /** Set when the feed is an error feed. */
  error?: string;
}

type XmlElement = {
  readonly localName: string;
  readonly namespaceURI: string | null;
  readonly textContent: string | null;
  readonly children: ArrayLike<XmlElement>;
  getAttribute(name: string): string | null;
};

function malformed(reason: string): DossierError {
  return new DossierError("PROVIDER_ERROR", `arxiv: the answer is not an Atom feed (${reason})`, {
    retryable: true,
    details: { provider: "arxiv" },
  });
}

function childrenOf(element: XmlElement, ns: string, name: string): XmlElement[] {
  return Array.from(element.children).filter((c) => c.localName === name && c.namespaceURI === ns);
}

function text(element: XmlElement, ns: string, name: string): string | undefined {
  const value = childrenOf(element, ns, name)[0]?.textContent?.replace(/\s+/g, " ").trim();
  return value ? value : undefined;
}

function readEntry(entry: XmlElement): ArxivEntry {
  const id = text(entry, ATOM, "id") ?? "";
  const links = childrenOf(entry, ATOM, "link");
  const alternate = links.find(
    (l) => l.getAttribute("rel") === "alternate" && (l.getAttribute("type") ?? "text/html") === "text/html",
  );
  const pdf = links.find(
    (l) => l.getAttribute("title") === "pdf" || l.getAttribute("type") === "application/pdf",
  );
  const authors = childrenOf(entry, ATOM, "author")
    .map((a) => text(a, ATOM, "name"))
    .filter((n): n is string => n !== undefined);
  const result: ArxivEntry = {
    id,
    absUrl: id || alternate?.getAttribute("href")?.trim() || "",
    title: text(entry, ATOM, "title") ?? "",
    summary: text(entry, ATOM, "summary") ?? "",
    authors,
  };
  const pdfUrl = pdf?.getAttribute("href")?.trim();
  if (pdfUrl) result.pdfUrl = pdfUrl;
  const published = text(entry, ATOM, "published");
  if (published) result.published = published;
  const updated = text(entry, ATOM, "updated");
  if (updated) result.updated = updated;
  const doi = text(entry, ARXIV, "doi");
  if (doi) result.doi = doi;
  const category = childrenOf(entry, ARXIV, "primary_category")[0]?.getAttribute("term");
  if (category) result.primaryCategory = category;
  return result;
}

/**
 * Parses an arXiv Atom feed. Malformed XML, or XML whose root is not an Atom `<feed>` (an HTML
 * error page, say), is a retryable PROVIDER_ERROR. An error feed gives `error`, no entries.
 */
export async function parseArxivFeed(xml: string): Promise<ArxivFeed> {
  if (xml.trim() === "") throw malformed("empty answer");
  const { JSDOM } = await import("jsdom");
  let root: XmlElement | null;
  try {
    root = new JSDOM(xml, { contentType: "application/xml" }).window.document
      .documentElement as unknown as XmlElement | null;
  } catch (error) {
    throw malformed(error instanceof Error ? error.message.replace(/^about:blank:/, "") : String(error));
  }
  if (root?.localName !== "feed" || root.namespaceURI !== ATOM) {
    throw malformed(`root element <${root?.localName ?? "none"}>`);
  }
  const entries = childrenOf(root, ATOM, "entry").map(readEntry);
  const refusal = entries.find((e) => ERROR_ID.test(e.id));
  if (refusal) return { entries: [], error: refusal.summary || refusal.title || "unknown error" };
  const total = Number(
    Array.from(root.children)
      .find((c) => c.localName === "totalResults")
      ?.textContent?.trim(),
  );
  return { entries, ...(Number.isFinite(total) ? { totalResults: total } : {}) };
}
