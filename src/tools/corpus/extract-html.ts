/**
 * HTML → sections, with jsdom (no scripts run, no resources loaded). `h1`–`h6` open sections
 * (heading path and GitHub slug as for Markdown); block elements (`p`, `li`, `pre`, `td`, …)
 * end paragraphs; whitespace is collapsed except inside `pre`. `script`, `style`, `nav`,
 * `template`, `svg` and similar are dropped. The title is `<title>`, else the first `h1`, else
 * the file name.
 */

import { parseHtmlDocument } from "../fetch/html-document.ts";
import { Slugger } from "./slug.ts";
import type { ExtractedDocument, Section } from "./types.ts";

const SKIP = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "head",
  "nav",
  "svg",
  "math",
  "iframe",
  "object",
  "embed",
  "canvas",
  "select",
  "button",
]);
const BLOCK = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "caption",
  "dd",
  "details",
  "dialog",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "header",
  "hr",
  "li",
  "main",
  "ol",
  "p",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
]);
const HEADING = /^h([1-6])$/;

const collapse = (text: string) => text.replace(/\s+/g, " ").trim();

/** Splits an HTML document into sections. */
export function extractHtml(html: string, fallbackTitle: string): ExtractedDocument {
  const document = parseHtmlDocument(html);
  const slugger = new Slugger();
  const stack: { level: number; text: string }[] = [];
  const sections: Section[] = [];
  let current: Section = { headingPath: [], anchor: "", paragraphs: [] };
  let inline = "";
  let firstH1: string | undefined;

  const flush = () => {
    const text = collapse(inline);
    if (text) current.paragraphs.push(text);
    inline = "";
  };
  const visit = (node: Node): void => {
    if (node.nodeType === 3) {
      inline += (node as Text).data;
      return;
    }
    if (node.nodeType !== 1) return;
    const element = node as Element;
    const tag = element.tagName.toLowerCase();
    if (SKIP.has(tag)) return;
    const heading = HEADING.exec(tag);
    if (heading) {
      flush();
      const level = Number(heading[1]);
      const text = collapse(element.textContent ?? "");
      if (!text) return;
      if (level === 1 && firstH1 === undefined) firstH1 = text;
      sections.push(current);
      while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
      stack.push({ level, text });
      current = { headingPath: stack.map((h) => h.text), anchor: slugger.slug(text), paragraphs: [] };
      return;
    }
    if (tag === "pre") {
      flush();
      const text = (element.textContent ?? "").replace(/^\n+|\s+$/g, "");
      if (text) current.paragraphs.push(text);
      return;
    }
    if (tag === "br") {
      inline += "\n";
      return;
    }
    const block = BLOCK.has(tag);
    if (block) flush();
    for (const child of Array.from(element.childNodes)) visit(child);
    if (block) flush();
    else if (tag === "img") inline += ` ${element.getAttribute("alt") ?? ""} `;
  };

  if (document.body) visit(document.body);
  flush();
  sections.push(current);
  const title = collapse(document.title ?? "") || firstH1 || fallbackTitle;
  return { title, sections: sections.filter((s) => s.paragraphs.length > 0) };
}
