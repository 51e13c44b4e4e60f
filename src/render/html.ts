/**
 * A standalone HTML rendering of a report: styled, citations link to their reference and show
 * the cited excerpt on hover (a `title` tooltip, no script), references link to the source.
 *
 * Untrusted text stays text: the Markdown is made inert first ({@link safeMarkdown}: raw HTML
 * escaped, only http(s)/mailto/#… link targets), the rendered fragment then goes through
 * DOMPurify as a last pass (HTML elements only, no style attributes or forms, the same target
 * allow-list on every URL attribute), and the page carries a Content-Security-Policy that allows
 * no script, no frames, no plugins and inline styles only.
 *
 * Opening the report requests nothing: images in its text are shown as links
 * ({@link imagesAsLinks}), no image, media or embedding element survives the last pass, and the
 * policy allows no image source. `remoteImages: "keep"` keeps images, and only then does the
 * page's policy allow http(s) images.
 */

import type { Config, DOMPurify, WindowLike } from "dompurify";
import type { Marked } from "marked";
import type { Reference } from "../core/citations.ts";
import { accessNote, titleSentence } from "../core/citations.ts";
import { languageTag } from "../core/language-tag.ts";
import { lazyModule } from "../core/lazy-module.ts";
import { imagesAsLinks, type RemoteImages } from "../core/markdown-images.ts";
import { readableText } from "../core/markdown-text.ts";
import type { ReportDocument } from "../core/report.ts";
import { reportLabels } from "../core/report-labels.ts";
import { isSafeLinkTarget, safeMarkdown } from "../core/safe-markdown.ts";
import { stripControlChars } from "../core/terminal-text.ts";
import { CLAIM_MARK_STYLE, claimSummaryHtml, markClaims } from "./claim-marks.ts";
import type { RenderOptions } from "./render-options.ts";

/** The Content-Security-Policy of an HTML report: no script, frames, plugins, forms or images; inline styles. */
export const REPORT_CSP = reportCsp("link");

/** The policy of a report rendered with `remoteImages` (`keep` alone allows http(s) images). */
export function reportCsp(remoteImages: RemoteImages = "link"): string {
  return (
    "default-src 'none'; script-src 'none'; object-src 'none'; frame-src 'none'; child-src 'none'; " +
    `style-src 'unsafe-inline'; img-src ${remoteImages === "keep" ? "https: http:" : "'none'"}; ` +
    "media-src 'none'; base-uri 'none'; form-action 'none'"
  );
}

/** marked, loaded on first use; the GFM parser is made then. */
const marked = lazyModule<typeof import("marked")>("marked");
let gfm: Marked | undefined;
function markdown(): Marked {
  gfm ??= new (marked().Marked)({ gfm: true });
  return gfm;
}

/** Elements that load a resource by themselves (images, media, image inputs). */
const LOADING_TAGS = ["img", "image", "picture", "source", "video", "audio", "track", "input"];

const PURIFY: Config = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    ...["style", "form", "button", "textarea", "select", "option", "base", "meta", "link", "title"],
    ...["noscript", "xmp", "noembed", "noframes", "plaintext", "iframe", "template"],
  ],
  FORBID_ATTR: ["style", "srcset", "action", "formaction", "background", "ping", "target"],
  ALLOWED_URI_REGEXP: /^(?:https?:\/\/|mailto:|#)/i,
  ALLOW_DATA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
};

/** Attributes whose value is a URL. */
const URL_ATTRIBUTES = ["href", "src", "xlink:href", "cite", "poster", "longdesc", "usemap"];

// Loaded with the first report rendered, not with Dossier (CommonJS builds).
const jsdom = lazyModule<typeof import("jsdom")>("jsdom");
const dompurify = lazyModule<DOMPurify | { default: DOMPurify }>("dompurify");

let purifier: DOMPurify | undefined;

/**
 * Sanitizes an HTML fragment with DOMPurify over a jsdom window (created once, on first use).
 * Unless `remoteImages` is `keep`, no element that loads something by itself survives.
 */
export function sanitizeHtml(html: string, remoteImages: RemoteImages = "link"): string {
  if (!purifier) {
    const loaded = dompurify();
    const createDOMPurify = "default" in loaded ? loaded.default : loaded;
    purifier = createDOMPurify(new (jsdom().JSDOM)("").window as unknown as WindowLike);
    // DOMPurify lets data: URLs through on images and media; the report allows none.
    purifier.addHook("afterSanitizeAttributes", (node) => {
      for (const name of URL_ATTRIBUTES) {
        const value = node.getAttribute?.(name);
        if (value !== null && value !== undefined && !isSafeLinkTarget(value)) node.removeAttribute(name);
      }
      if (node.tagName === "A" && /^https?:/i.test(node.getAttribute("href") ?? ""))
        node.setAttribute("rel", "noopener noreferrer");
    });
  }
  const config =
    remoteImages === "keep" ? PURIFY : { ...PURIFY, FORBID_TAGS: [...PURIFY.FORBID_TAGS!, ...LOADING_TAGS] };
  return purifier.sanitize(html, config) as string;
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1d1f23; --muted: #5d6470; --bg: #fff; --accent: #2457c5; --rule: #e2e5ea; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --muted: #a0a7b2; --bg: #15171a; --accent: #7aa2ff; --rule: #2c3036; } }
body { margin: 0; background: var(--bg); color: var(--fg); font: 17px/1.6 Georgia, "Noto Serif", "Songti SC", serif; }
main { max-width: 46rem; margin: 0 auto; padding: 2.5rem 1.25rem 4rem; }
h1, h2, h3, h4 { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", sans-serif; line-height: 1.25; }
h1 { font-size: 2rem; margin-bottom: .25rem; }
.meta { color: var(--muted); font: 14px system-ui, sans-serif; margin-bottom: 2rem; }
.notice { border-left: 4px solid var(--accent); padding: .5rem 1rem; background: color-mix(in srgb, var(--accent) 8%, transparent); font: 15px system-ui, sans-serif; }
a { color: var(--accent); }
sup.cites { font: 600 .7em system-ui, sans-serif; line-height: 0; }
a.cite { text-decoration: none; }
table { border-collapse: collapse; margin: 1rem 0; font: 15px system-ui, sans-serif; display: block; overflow-x: auto; }
th, td { border: 1px solid var(--rule); padding: .35rem .6rem; text-align: left; }
blockquote { color: var(--muted); border-left: 3px solid var(--rule); margin-left: 0; padding-left: 1rem; }
code { font-size: .9em; }
ol.references { font: 14px/1.5 system-ui, sans-serif; padding-left: 1.5rem; }
ol.references li:target { background: color-mix(in srgb, var(--accent) 15%, transparent); }
.accessed { color: var(--muted); }
@media print {
  main { max-width: none; padding: 0; }
  table { display: table; overflow: visible; }
  h1, h2, h3, h4 { break-after: avoid; }
  tr, li, blockquote { break-inside: avoid; }
  pre { white-space: pre-wrap; }
}
`;

/** Escapes text for HTML. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/** Renders the report as one self-contained HTML file that loads nothing (images as links unless kept). */
export function renderHtml(doc: ReportDocument, options: RenderOptions = {}): string {
  const remoteImages = options.remoteImages ?? "link";
  const excerpts = excerptIndex(doc);
  const safe = safeMarkdown(doc.body.trimStart().replace(/^#\s+[^\n]*\n+/, ""));
  const body = remoteImages === "keep" ? safe : imagesAsLinks(safe);
  const linked = linkCitations(markdown().parse(body, { async: false }) as string, excerpts);
  // A verified report marks each checked claim at its citation (verdict; deciding span on hover).
  const html = doc.verification ? markClaims(linked, doc.body, doc.verification, doc.language) : linked;
  const refs = doc.references.map((r) => referenceItem(r, excerpts.get(r.number), doc.language)).join("\n");
  const l = reportLabels(doc.language);
  const notice = doc.notice ? `<p class="notice">${escapeHtml(doc.notice)}</p>` : "";
  // The report's language, when it is a well-formed tag ("auto" is resolved before writing).
  const lang = languageTag(doc.language === "auto" ? undefined : doc.language) ?? "en";
  // No control character reaches the page (a terminal showing the file would act on them).
  return stripControlChars(`<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${reportCsp(remoteImages)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.title)}</title>
<style>${STYLE}${doc.verification ? CLAIM_MARK_STYLE : ""}</style>
</head>
<body>
<main>
${sanitizeHtml(
  `<h1>${escapeHtml(doc.title)}</h1>
<p class="meta">${escapeHtml(l.researchQuestion)}: ${escapeHtml(doc.query)}<br>${escapeHtml(l.run)} ${escapeHtml(doc.runId)} · ${escapeHtml(doc.strategy)} · ${escapeHtml(doc.currentDate)} · ${escapeHtml(l.sources(doc.references.length))}</p>
${notice}
${html}
${doc.references.length ? `<h2 id="references">${escapeHtml(l.references)}</h2>\n<ol class="references">\n${refs}\n</ol>` : ""}
${doc.verification ? claimSummaryHtml(doc.verification, doc.language) : ""}`,
  remoteImages,
)}
</main>
</body>
</html>
`);
}

function excerptIndex(doc: ReportDocument): Map<number, string> {
  // The excerpt as a reader sees it: no Markdown escapes or markers in a hover title.
  const byId = new Map(doc.evidence.map((e) => [e.id, readableText(e.text)]));
  const out = new Map<number, string>();
  for (const [n, ids] of Object.entries(doc.evidenceByNumber)) {
    const text = ids
      .map((id) => byId.get(id))
      .filter(Boolean)
      .join(" … ");
    const cut = text.length > 400 ? `${text.slice(0, 400)}…` : text;
    // A tooltip that looks like it closes a raw-text element (`</script`, `-->`, `]>`) would be
    // dropped by the sanitizer; those sequences read the same with a single angle quotation mark.
    out.set(Number(n), cut.replace(/<(?=\/)/g, "‹").replace(/(--!?|\])>/g, "$1›"));
  }
  return out;
}

function referenceItem(r: Reference, excerpt: string | undefined, language: string): string {
  const isUrl = /^https?:\/\//i.test(r.locator);
  const target = isUrl
    ? `<a href="${escapeHtml(r.locator)}" rel="noopener noreferrer">${escapeHtml(r.locator)}</a>`
    : `<code>${escapeHtml(r.locator)}</code>`;
  const tip = excerpt ? ` title="${escapeHtml(excerpt)}"` : "";
  return `<li id="ref-${r.number}"${tip}>${escapeHtml(titleSentence(r.title))} ${target} <span class="accessed">(${escapeHtml(accessNote(r, language))})</span></li>`;
}

/** Turns `[1]` / `[1, 2]` in text (not in code or links) into links to the references. */
export function linkCitations(html: string, excerpts: Map<number, string>): string {
  let skip = 0;
  return html
    .split(/(<[^>]+>)/)
    .map((part) => {
      if (part.startsWith("<")) {
        if (/^<(code|pre|a)[\s>]/i.test(part)) skip++;
        else if (/^<\/(code|pre|a)>/i.test(part)) skip = Math.max(0, skip - 1);
        return part;
      }
      if (skip > 0) return part;
      return part.replace(/\[(\d+(?:, \d+)*)\]/g, (_m, list: string) => {
        const links = list.split(", ").map((n) => {
          const tip = excerpts.get(Number(n));
          return `<a class="cite" href="#ref-${n}"${tip ? ` title="${escapeHtml(tip)}"` : ""}>${n}</a>`;
        });
        return `<sup class="cites">[${links.join(", ")}]</sup>`;
      });
    })
    .join("");
}
