/**
 * A standalone HTML rendering of a report: styled, citations link to their reference and show
 * the cited excerpt on hover, references link to the source.
 */

import { marked } from "marked";
import type { Reference } from "../core/citations.ts";
import type { ReportDocument } from "../core/report.ts";

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
`;

/** Escapes text for HTML. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/** Renders the report as one self-contained HTML file. */
export function renderHtml(doc: ReportDocument): string {
  const excerpts = excerptIndex(doc);
  const body = doc.body.trimStart().replace(/^#\s+[^\n]*\n+/, "");
  const html = linkCitations(marked.parse(body, { async: false, gfm: true }) as string, excerpts);
  const refs = doc.references.map((r) => referenceItem(r, excerpts.get(r.number))).join("\n");
  const notice = doc.notice ? `<p class="notice">${escapeHtml(doc.notice)}</p>` : "";
  const lang = doc.language && doc.language !== "auto" ? doc.language : "en";
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(doc.title)}</h1>
<p class="meta">Research question: ${escapeHtml(doc.query)}<br>Run ${escapeHtml(doc.runId)} · ${escapeHtml(doc.strategy)} · ${escapeHtml(doc.currentDate)} · ${doc.references.length} sources</p>
${notice}
${html}
${doc.references.length ? `<h2 id="references">References</h2>\n<ol class="references">\n${refs}\n</ol>` : ""}
</main>
</body>
</html>
`;
}

function excerptIndex(doc: ReportDocument): Map<number, string> {
  const byId = new Map(doc.evidence.map((e) => [e.id, e.text]));
  const out = new Map<number, string>();
  for (const [n, ids] of Object.entries(doc.evidenceByNumber)) {
    const text = ids
      .map((id) => byId.get(id))
      .filter(Boolean)
      .join(" … ");
    out.set(Number(n), text.length > 400 ? `${text.slice(0, 400)}…` : text);
  }
  return out;
}

function referenceItem(r: Reference, excerpt: string | undefined): string {
  const isUrl = /^https?:\/\//i.test(r.locator);
  const target = isUrl
    ? `<a href="${escapeHtml(r.locator)}" rel="noopener noreferrer">${escapeHtml(r.locator)}</a>`
    : `<code>${escapeHtml(r.locator)}</code>`;
  const tip = excerpt ? ` title="${escapeHtml(excerpt)}"` : "";
  return `<li id="ref-${r.number}"${tip}>${escapeHtml(r.title)}. ${target} <span class="accessed">(accessed ${escapeHtml(r.accessed)})</span></li>`;
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
