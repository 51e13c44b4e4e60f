/**
 * Parsing HTML into a DOM document for reading (never for rendering): each document belongs to
 * one shared jsdom window. Building a jsdom window per page cost about 12 ms of CPU even for a
 * tiny page; a document of an existing window costs a fraction of that. Scripts never run in it
 * and nothing is loaded. jsdom is loaded with the first document parsed, so only code that
 * parses HTML pays for loading it.
 */

import type { DOMWindow } from "jsdom";
import { lazyModule } from "../../core/lazy-module.ts";

const jsdom = lazyModule<typeof import("jsdom")>("jsdom");

let parserWindow: DOMWindow | undefined;

/**
 * Parses `html` into a document of the shared window. With `url`, the document's base URL is
 * the page's (a `<base>` element: the page's own `<base href>` resolved against `url`, else
 * `url`), so relative links resolve as they would on the page.
 */
export function parseHtmlDocument(html: string, url?: string): Document {
  if (!parserWindow) {
    const { JSDOM, VirtualConsole } = jsdom();
    parserWindow = new JSDOM("<!doctype html>", { virtualConsole: new VirtualConsole() }).window;
  }
  const document = new parserWindow.DOMParser().parseFromString(html, "text/html");
  if (url !== undefined) {
    const declared = document.querySelector("base[href]")?.getAttribute("href");
    let href = url;
    try {
      href = new URL(declared ?? url, url).href;
    } catch {
      // An unparsable <base href> is ignored, as browsers do.
    }
    for (const old of document.querySelectorAll("base")) old.remove();
    const base = document.createElement("base");
    base.setAttribute("href", href);
    document.head.prepend(base);
  }
  return document as unknown as Document;
}
