/**
 * A refresh's Markdown redline, read into blocks the page renders as text: headings, list items
 * and paragraphs whose inline parts are plain text, struck-through (removed) text, bold (added)
 * text and http(s) autolinks. Nothing of the redline becomes markup: raw HTML the report escaped
 * (`&lt;b>`) is read back as the characters it stands for and shown as text, and a link whose
 * target is not http(s) stays text.
 */

/** An inline part of a redline line. */
export type RedlineInline =
  | { kind: "text"; text: string }
  | { kind: "removed"; text: string }
  | { kind: "added"; text: string }
  | { kind: "link"; href: string; text: string };

/** A block of the redline. */
export type RedlineBlock =
  | { kind: "heading"; level: 1 | 2 | 3; parts: RedlineInline[] }
  | { kind: "item"; parts: RedlineInline[] }
  | { kind: "paragraph"; parts: RedlineInline[] };

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', "#39": "'", apos: "'" };

/** Markdown's escapes of the redline read back as text (`&lt;` → `<`, `\*` → `*`). */
export function unescapeText(text: string): string {
  return text
    .replace(/&(lt|gt|amp|quot|#39|apos);/g, (_, name: string) => ENTITIES[name]!)
    .replace(/\\([\\`*_{}[\]()#+\-.!~<>|])/g, "$1");
}

/** The inline parts of one line. */
export function redlineInline(line: string): RedlineInline[] {
  const parts: RedlineInline[] = [];
  const push = (part: RedlineInline) => {
    if (part.text === "") return;
    const last = parts.at(-1);
    if (part.kind === "text" && last?.kind === "text") last.text += part.text;
    else parts.push(part);
  };
  let at = 0;
  for (const m of line.matchAll(/~~(.+?)~~|\*\*(.+?)\*\*|<([^<>\s]+)>/g)) {
    push({ kind: "text", text: unescapeText(line.slice(at, m.index)) });
    if (m[1] !== undefined) push({ kind: "removed", text: unescapeText(m[1]) });
    else if (m[2] !== undefined) push({ kind: "added", text: unescapeText(m[2]) });
    else {
      const target = m[3]!;
      if (/^https?:\/\/[^\s"'`]+$/i.test(target)) push({ kind: "link", href: target, text: target });
      else push({ kind: "text", text: unescapeText(m[0]) });
    }
    at = m.index + m[0].length;
  }
  push({ kind: "text", text: unescapeText(line.slice(at)) });
  return parts;
}

/** The blocks of a redline (blank lines separate; `#`…`###` headings; `- ` items). */
export function parseRedline(markdown: string): RedlineBlock[] {
  const blocks: RedlineBlock[] = [];
  for (const raw of markdown.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (!line.trim()) continue;
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    if (heading) {
      blocks.push({
        kind: "heading",
        level: heading[1]!.length as 1 | 2 | 3,
        parts: redlineInline(heading[2]!),
      });
      continue;
    }
    const item = /^\s*[-*]\s+(.*)$/.exec(line);
    if (item) blocks.push({ kind: "item", parts: redlineInline(item[1]!) });
    else blocks.push({ kind: "paragraph", parts: redlineInline(line) });
  }
  return blocks;
}
