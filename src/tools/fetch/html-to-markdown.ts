/**
 * HTML → the page's main content as Markdown: Readability (on jsdom, with the page URL so
 * relative links resolve) picks the article and drops navigation, headers, footers and
 * sidebars; Turndown writes Markdown. When Readability finds nothing, the body is converted
 * instead. Scripts never run and no resource is loaded.
 *
 * The Markdown is text for a model to read: links keep their text but not their URL (the
 * page's links are returned apart, in `links`), images leave nothing (their alt text mostly
 * repeats a caption), and tables become GFM pipe tables — the first row is the header when the
 * table has none — unless they are layout tables (nested tables, block content in cells, a
 * single column), whose cells become paragraphs.
 */

import type { Readability } from "@mozilla/readability";
import type TurndownService from "turndown";
import { lazyModule } from "../../core/lazy-module.ts";
import { cleanArticle } from "./content-cleanup.ts";
import { parseHtmlDocument } from "./html-document.ts";

/** A link of the page: its text and absolute URL. */
export interface PageLink {
  text: string;
  url: string;
}

/** The main content of an HTML page. */
export interface HtmlExtraction {
  /** Readability's title, else `<title>`, else the first heading; empty when none. */
  title: string;
  /** The main content as Markdown, without link URLs or image markup. */
  markdown: string;
  /** The http(s) links of the main content, in order, one per URL. */
  links: PageLink[];
  /** True when Readability found the content; false when the body fallback was used. */
  readability: boolean;
  byline?: string;
  /** Publication time the page declares (ISO or as written). */
  publishedAt?: string;
  /** The page's language (`<html lang>`). */
  lang?: string;
}

/** Elements never worth converting. */
const NOISE = [
  "script",
  "style",
  "noscript",
  "template",
  "iframe",
  "object",
  "embed",
  "svg",
  "canvas",
  "img",
  "picture",
  "video",
  "audio",
  "source",
  "map",
];

/** Elements that make a table cell hold blocks rather than a value. */
const BLOCKS = "table, p, div, ul, ol, dl, h1, h2, h3, h4, h5, h6, blockquote, pre, figure, section, article";

// Loaded with the first page converted, not with Dossier (CommonJS builds).
const readability = lazyModule<typeof import("@mozilla/readability")>("@mozilla/readability");
const turndownModule = lazyModule<typeof TurndownService | { default: typeof TurndownService }>("turndown");
const gfm = lazyModule<typeof import("turndown-plugin-gfm")>("turndown-plugin-gfm");

let turndownService: TurndownService | undefined;

function turndown(): TurndownService {
  if (turndownService) return turndownService;
  const loaded = turndownModule();
  const Turndown = "default" in loaded ? loaded.default : loaded;
  const { strikethrough, taskListItems } = gfm();
  const service = new Turndown({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "*",
    strongDelimiter: "**",
    hr: "---",
  });
  service.use([strikethrough, taskListItems]);
  service.remove(NOISE as (keyof HTMLElementTagNameMap)[]);
  service.addRule("link", {
    filter: "a",
    replacement: (content) => content,
  });
  service.addRule("table", {
    filter: "table",
    replacement: (_content, node) => `\n\n${tableMarkdown(service, node as HTMLTableElement)}\n\n`,
  });
  turndownService = service;
  return service;
}

function cellMarkdown(service: TurndownService, cell: HTMLTableCellElement): string {
  // Turndown converts a node's children; the cell itself is left out.
  return service
    .turndown(cell as unknown as TurndownService.Node)
    .replace(/\s*\n\s*/g, " ")
    .replaceAll("|", "\\|")
    .trim();
}

/** A data table as a GFM pipe table; the first row is the header when none is marked. */
function tableMarkdown(service: TurndownService, table: HTMLTableElement): string {
  const rows = [...table.rows]
    .map((row) =>
      [...row.cells].flatMap((cell) => {
        const text = cellMarkdown(service, cell);
        const span = Math.min(Math.max(1, Number(cell.getAttribute("colspan")) || 1), 50);
        return [text, ...Array<string>(span - 1).fill("")];
      }),
    )
    .filter((cells) => cells.some((c) => c !== ""));
  if (rows.length === 0) return "";
  const width = Math.max(...rows.map((r) => r.length));
  const line = (cells: string[]) =>
    `| ${[...cells, ...Array<string>(width - cells.length).fill("")].join(" | ")} |`;
  const [header, ...body] = rows;
  return [line(header!), line(Array<string>(width).fill("---")), ...body.map(line)].join("\n");
}

/** True for a table used for layout: nested tables, block content in a cell, one column, `role=presentation`. */
function isLayoutTable(table: HTMLTableElement): boolean {
  const role = table.getAttribute("role");
  if (role === "presentation" || role === "none") return true;
  const rows = [...table.rows];
  if (rows.length === 0) return true;
  if (Math.max(...rows.map((r) => r.cells.length)) < 2) return true;
  return rows.some((row) => [...row.cells].some((cell) => cell.querySelector(BLOCKS) !== null));
}

/** Replaces layout tables (innermost first) by their cells' contents, one block per cell. */
function flattenLayoutTables(root: Element): void {
  const document = root.ownerDocument;
  const tables = [...root.querySelectorAll("table")].reverse() as HTMLTableElement[];
  for (const table of tables) {
    if (!isLayoutTable(table)) continue;
    const replacement = document.createElement("div");
    for (const row of [...table.rows]) {
      for (const cell of [...row.cells]) {
        const block = document.createElement("div");
        while (cell.firstChild) block.appendChild(cell.firstChild);
        replacement.appendChild(block);
      }
    }
    const caption = table.caption;
    if (caption?.textContent?.trim()) {
      const block = document.createElement("p");
      block.textContent = caption.textContent;
      replacement.prepend(block);
    }
    table.replaceWith(replacement);
  }
}

/** The http(s) links under `root`, made absolute against `baseUrl`, one per URL. */
function collectLinks(root: Element, baseUrl: string): PageLink[] {
  const seen = new Set<string>();
  const links: PageLink[] = [];
  for (const anchor of root.querySelectorAll("a[href]")) {
    const href = anchor.getAttribute("href") ?? "";
    let url: URL;
    try {
      url = new URL(href, baseUrl);
    } catch {
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") continue;
    url.hash = "";
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    links.push({ text: (anchor.textContent ?? "").replace(/\s+/g, " ").trim(), url: url.href });
  }
  return links;
}

/**
 * Markdown and links of `root` (which is changed: noise removed, layout tables flattened, and
 * for an article what is not part of it; see content-cleanup.ts).
 */
function convert(root: Element, baseUrl: string, article: boolean): { markdown: string; links: PageLink[] } {
  for (const element of root.querySelectorAll(NOISE.join(","))) element.remove();
  if (article) cleanArticle(root);
  flattenLayoutTables(root);
  const links = collectLinks(root, baseUrl);
  return { markdown: tidyMarkdown(turndown().turndown(root as unknown as TurndownService.Node)), links };
}

/**
 * Converts an HTML fragment to tidy Markdown, and lists its links (resolved against `baseUrl`).
 * `article`: the fragment is an article's main content, to be cleaned of what is not part of it.
 */
export function fragmentToMarkdown(
  html: string,
  baseUrl = "https://invalid/",
  options: { article?: boolean } = {},
): { markdown: string; links: PageLink[] } {
  const document = parseHtmlDocument("<!doctype html><body></body>", baseUrl);
  const container = document.createElement("div");
  container.innerHTML = html;
  return convert(container, baseUrl, options.article ?? false);
}

/** Trims trailing spaces and collapses runs of blank lines. */
export function tidyMarkdown(markdown: string): string {
  return markdown
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Extracts the main content of `html` (served at `url`) as Markdown. */
export function htmlToMarkdown(html: string, url: string): HtmlExtraction {
  const document = parseHtmlDocument(html, url);
  const docTitle = document.title.replace(/\s+/g, " ").trim();
  const lang = document.documentElement.getAttribute("lang")?.trim() || undefined;
  let article: ReturnType<Readability["parse"]> = null;
  try {
    article = new (readability().Readability)(document.cloneNode(true) as Document, {
      keepClasses: true,
    }).parse();
  } catch {
    article = null;
  }
  let converted: ReturnType<typeof convert> | undefined;
  if (article?.content) {
    const container = document.createElement("div");
    container.innerHTML = article.content;
    converted = convert(container, url, true);
  }
  if (article && converted?.markdown) {
    return {
      title: (article.title ?? "").replace(/\s+/g, " ").trim() || docTitle || firstHeading(document),
      markdown: converted.markdown,
      links: converted.links,
      readability: true,
      ...(article.byline ? { byline: article.byline.trim() } : {}),
      ...(article.publishedTime ? { publishedAt: article.publishedTime } : {}),
      ...(lang ? { lang } : {}),
    };
  }
  const body = document.body;
  const fallback = body ? convert(body, url, false) : { markdown: "", links: [] };
  return {
    title: docTitle || firstHeading(document),
    markdown: fallback.markdown,
    links: fallback.links,
    readability: false,
    ...(lang ? { lang } : {}),
  };
}

function firstHeading(document: Document): string {
  return document.querySelector("h1, h2")?.textContent?.replace(/\s+/g, " ").trim() ?? "";
}
