/**
 * HTML → the page's main content as Markdown: Readability (on jsdom, with the page URL so
 * relative links resolve) picks the article and drops navigation, headers, footers and
 * sidebars; Turndown with GitHub-flavoured tables writes Markdown. When Readability finds
 * nothing, the body's text is converted instead. Scripts never run and no resource is loaded.
 */

import { Readability } from "@mozilla/readability";
import { JSDOM, VirtualConsole } from "jsdom";
import TurndownService from "turndown";
import { gfm } from "turndown-plugin-gfm";

/** The main content of an HTML page. */
export interface HtmlExtraction {
  /** Readability's title, else `<title>`, else the first heading; empty when none. */
  title: string;
  /** The main content as Markdown. */
  markdown: string;
  /** True when Readability found the content; false when the body fallback was used. */
  readability: boolean;
  byline?: string;
  /** Publication time the page declares (ISO or as written). */
  publishedAt?: string;
  /** The page's language (`<html lang>`). */
  lang?: string;
}

/** Elements never worth converting. */
const NOISE = ["script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas"];

let turndownService: TurndownService | undefined;

function turndown(): TurndownService {
  if (turndownService) return turndownService;
  const service = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "_",
    hr: "---",
  });
  service.use(gfm);
  service.remove(NOISE as (keyof HTMLElementTagNameMap)[]);
  service.addRule("image", {
    filter: "img",
    replacement: (_content, node) => {
      const element = node as HTMLElement;
      const alt = (element.getAttribute("alt") ?? "").replace(/\s+/g, " ").trim();
      const src = element.getAttribute("src") ?? "";
      if (!alt) return "";
      return src && !src.startsWith("data:") ? `![${alt}](${src})` : `[image: ${alt}]`;
    },
  });
  turndownService = service;
  return service;
}

/** Converts an HTML fragment to tidy Markdown. */
export function fragmentToMarkdown(html: string): string {
  return tidyMarkdown(turndown().turndown(html));
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
  const dom = new JSDOM(html, { url, contentType: "text/html", virtualConsole: new VirtualConsole() });
  try {
    const document = dom.window.document;
    const docTitle = document.title.replace(/\s+/g, " ").trim();
    const lang = document.documentElement.getAttribute("lang")?.trim() || undefined;
    let article: ReturnType<Readability["parse"]> = null;
    try {
      article = new Readability(document.cloneNode(true) as Document).parse();
    } catch {
      article = null;
    }
    const readabilityMarkdown = article?.content ? fragmentToMarkdown(article.content) : "";
    if (article && readabilityMarkdown) {
      return {
        title: (article.title ?? "").replace(/\s+/g, " ").trim() || docTitle || firstHeading(document),
        markdown: readabilityMarkdown,
        readability: true,
        ...(article.byline ? { byline: article.byline.trim() } : {}),
        ...(article.publishedTime ? { publishedAt: article.publishedTime } : {}),
        ...(lang ? { lang } : {}),
      };
    }
    const body = document.body;
    if (body) {
      for (const element of body.querySelectorAll(NOISE.join(","))) element.remove();
      absolutizeLinks(body);
    }
    return {
      title: docTitle || firstHeading(document),
      markdown: body ? fragmentToMarkdown(body.innerHTML) : "",
      readability: false,
      ...(lang ? { lang } : {}),
    };
  } finally {
    dom.window.close();
  }
}

function firstHeading(document: Document): string {
  return document.querySelector("h1, h2")?.textContent?.replace(/\s+/g, " ").trim() ?? "";
}

/** Makes `href` and `src` attributes absolute (Readability does this for its own output). */
function absolutizeLinks(root: Element): void {
  for (const element of root.querySelectorAll("a[href], img[src]")) {
    const attribute = element.tagName === "A" ? "href" : "src";
    const value = element.getAttribute(attribute) ?? "";
    if (!value || value.startsWith("#") || /^(?:javascript|data):/i.test(value)) continue;
    try {
      element.setAttribute(attribute, new URL(value, element.ownerDocument.baseURI).href);
    } catch {
      // Leave unparsable links as they are.
    }
  }
}
