/**
 * Checks that rendered HTML carries nothing live, by parsing it with jsdom (not by matching
 * strings): no script, frame, plugin, form, base, SVG or MathML element, no meta refresh, no
 * event-handler, `srcdoc` or style attribute, and every URL attribute within the allow-list
 * (http, https, mailto, in-document `#…`). Also loads the page with scripts enabled and counts
 * what ran.
 */

import { JSDOM, VirtualConsole } from "jsdom";
import { Marked } from "marked";

const FORBIDDEN_ELEMENTS =
  "script, iframe, frame, frameset, object, embed, applet, base, form, button, svg, math, link, portal, noscript, template, video, audio, source, track";
const FORBIDDEN_ATTRIBUTES = new Set([
  "srcdoc",
  "style",
  "formaction",
  "action",
  "srcset",
  "background",
  "ping",
]);
const URL_ATTRIBUTES = new Set([
  "href",
  "src",
  "xlink:href",
  "cite",
  "poster",
  "data",
  "longdesc",
  "usemap",
  "codebase",
]);
const BASE = "http://relative-base.invalid/";

/** True for a URL attribute value a report may carry: http(s), mailto or `#…`, as a browser parses it. */
export function allowedUrl(value: string): boolean {
  // A browser strips leading and trailing C0 controls and spaces, and tabs and newlines anywhere.
  const stripped = value.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, "").replace(/[\t\n\r]/g, "");
  if (stripped.startsWith("#")) return true;
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    // A browser does not follow an href it cannot parse; an unparsable http(s) URL is inert.
    return /^(?:https?:\/\/|mailto:)/i.test(stripped);
  }
  if (url.origin === new URL(BASE).origin) return false; // relative: not in the allow-list
  return ["http:", "https:", "mailto:"].includes(url.protocol);
}

let parser: DOMParser | undefined;

/** Parses an HTML document with jsdom (no script runs). */
export function parseHtml(html: string): Document {
  parser ??= new new JSDOM("").window.DOMParser();
  return parser.parseFromString(html, "text/html");
}

/** What is live in an HTML document or fragment; empty when nothing is. */
export function liveContent(html: string, options: { requireCsp?: boolean } = {}): string[] {
  const document = parseHtml(html);
  const problems: string[] = [];
  for (const el of document.querySelectorAll(FORBIDDEN_ELEMENTS)) problems.push(`element <${el.localName}>`);
  for (const el of document.querySelectorAll("style"))
    if (el.parentElement !== document.head) problems.push("element <style> outside the head");
  for (const meta of document.querySelectorAll("meta[http-equiv]")) {
    const equiv = meta.getAttribute("http-equiv")!.toLowerCase();
    if (equiv !== "content-security-policy") problems.push(`meta http-equiv=${equiv}`);
  }
  for (const el of document.querySelectorAll("*")) {
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      if (name.startsWith("on")) problems.push(`<${el.localName} ${name}>`);
      if (FORBIDDEN_ATTRIBUTES.has(name)) problems.push(`<${el.localName} ${name}>`);
      if ((URL_ATTRIBUTES.has(name) || name.endsWith(":href")) && !allowedUrl(attr.value))
        problems.push(`<${el.localName} ${name}="${attr.value}">`);
    }
  }
  if (options.requireCsp) {
    const csp = document.querySelector('head > meta[http-equiv="Content-Security-Policy"]');
    const policy = csp?.getAttribute("content") ?? "";
    const directives = new Map(
      policy
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0])
        .map(([name, ...values]) => [name!.toLowerCase(), values] as const),
    );
    const fallback = directives.get("default-src");
    const none = (name: string) => {
      const values = directives.get(name) ?? (name === "style-src" ? fallback : fallback);
      return values !== undefined && values.length === 1 && values[0] === "'none'";
    };
    if (!csp) problems.push("no Content-Security-Policy meta tag");
    else {
      for (const d of ["script-src", "object-src", "frame-src", "base-uri", "form-action"])
        if (!none(d) && !(d === "frame-src" && none("child-src"))) problems.push(`CSP allows ${d}`);
      const style = directives.get("style-src") ?? [];
      if (style.some((v) => v !== "'unsafe-inline'")) problems.push(`CSP style-src ${style.join(" ")}`);
    }
  }
  return problems;
}

/** Markdown rendered by `marked` (GFM), as any HTML-rendering Markdown viewer would. */
export function markdownToHtml(markdown: string): string {
  return new Marked({ gfm: true }).parse(markdown, { async: false }) as string;
}

/**
 * Loads the page in jsdom with scripts enabled, fires the usual events on every element and
 * counts calls of `alert`, `confirm`, `prompt` and `print` (what the hostile inputs call).
 */
export async function scriptCalls(html: string): Promise<number> {
  let calls = 0;
  const dom = new JSDOM(html, {
    runScripts: "dangerously",
    virtualConsole: new VirtualConsole(),
    beforeParse(window) {
      const count = () => {
        calls++;
      };
      Object.assign(window, { alert: count, confirm: count, prompt: count, print: count });
    },
  });
  const { window } = dom;
  for (const el of window.document.querySelectorAll("*")) {
    for (const type of [
      "load",
      "error",
      "click",
      "mouseover",
      "focus",
      "toggle",
      "begin",
      "animationstart",
    ]) {
      el.dispatchEvent(new window.Event(type));
    }
  }
  await new Promise((r) => setTimeout(r, 10));
  window.close();
  return calls;
}

/** Terminal control bytes (ESC, BEL, other C0 but tab/newline/CR, DEL, C1) found in a text. */
export function controlBytes(text: string): string[] {
  return [...text.matchAll(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g)].map(
    (m) => `\\x${m[0].charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}
