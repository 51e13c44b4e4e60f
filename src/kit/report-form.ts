/**
 * The shared form of a report a model wrote whole in Markdown (mams' report agent, smtl's
 * deep-research report): a title line the model added becomes the title, a reference list it
 * wrote is dropped (the citation pass adds the real one), headings start at level 2, and the
 * outline is read from the `##` headings.
 */

import { type MarkdownHeading, readMarkdown, referencesSpans } from "../core/markdown.ts";
import { createOutline, type Outline } from "../core/outline.ts";

/** A heading written at the start of its line (not inside a list item or a quote). */
function ownLine(heading: MarkdownHeading, text: string): boolean {
  return heading.style === "setext" || /^ {0,3}#/.test(text);
}

/**
 * The report text as the shared assembly expects it, and the title it carried: a first-line
 * level-1 heading becomes the title, the references sections the model wrote are dropped (see
 * `isReferencesTitle`), and headings are shifted so the highest is level 2 (written as ATX).
 */
export function normalizeReport(markdown: string, fallbackTitle: string): { title: string; body: string } {
  let text = markdown.replace(/\r\n/g, "\n").trim();
  let title = fallbackTitle;
  let doc = readMarkdown(text);
  const h1 = doc.headings[0];
  if (h1 && h1.line === 1 && h1.level === 1 && h1.title !== "") {
    title = h1.title;
    text = doc.lines
      .slice(h1.endLine)
      .map((l) => l.text)
      .join("\n")
      .trim();
    doc = readMarkdown(text);
  }
  const spans = referencesSpans(doc);
  const kept = (line: number) => !spans.some((s) => line >= s.start && line <= s.end);
  const headings = doc.headings.filter((h) => kept(h.line) && ownLine(h, doc.lines[h.line - 1]!.text));
  const shift = headings.length ? 2 - Math.min(...headings.map((h) => h.level)) : 0;
  const byLine = new Map(headings.map((h) => [h.line, h]));
  const out: string[] = [];
  let skipTo = 0;
  for (const { line, text: lineText } of doc.lines) {
    if (line <= skipTo || !kept(line)) continue;
    const heading = shift !== 0 ? byLine.get(line) : undefined;
    if (!heading) {
      out.push(lineText);
      continue;
    }
    const hashes = "#".repeat(Math.min(6, Math.max(2, heading.level + shift)));
    out.push(
      heading.style === "atx"
        ? lineText.replace(/^( {0,3})#{1,6}/, `$1${hashes}`)
        : `${hashes} ${heading.title}`,
    );
    skipTo = heading.endLine;
  }
  return { title, body: out.join("\n").trim() };
}

/** A level-1 outline from the report's `##` headings (one section named after the title without any). */
export function outlineOfReport(body: string, title: string): Outline {
  const headings = readMarkdown(body)
    .headings.filter((h) => h.level === 2)
    .map((h) => h.title)
    .filter(Boolean);
  const drafts = (headings.length ? headings : [title]).slice(0, 12).map((t) => ({ title: t, plan: "" }));
  return createOutline(drafts, { minSections: 1, maxSections: 12 });
}
