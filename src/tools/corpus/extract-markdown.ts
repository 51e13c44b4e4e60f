/**
 * Markdown → sections. ATX (`## Title`) and setext (`Title` over `===` / `---`) headings open
 * sections; a section's heading path is the chain of enclosing headings, its anchor the
 * GitHub slug of its own heading. Paragraphs are blocks separated by blank lines, kept
 * verbatim; a fenced code block (``` or ~~~) is one block and headings inside it are not
 * headings; thematic breaks (`---`, `***`) are dropped. YAML front matter is dropped (its
 * `title:` becomes the title). The title is the front-matter title, else the first level-1
 * heading, else the file name.
 */

import { Slugger } from "./slug.ts";
import type { ExtractedDocument, Section } from "./types.ts";

const ATX = /^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const THEMATIC_BREAK = /^ {0,3}([-*_])( *\1){2,} *$/;

/** The plain text of a heading's inline Markdown: links, images, emphasis and code marks removed. */
export function inlineText(markdown: string): string {
  return markdown
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/\*\*|__|~~|[*`]/g, "")
    .replace(/(^|\s)_+|_+(?=\s|$)/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

function frontMatter(lines: string[]): { end: number; title?: string } {
  if (lines[0]?.trim() !== "---") return { end: 0 };
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]?.trim() === "---" || lines[i]?.trim() === "...") {
      let title: string | undefined;
      for (const line of lines.slice(1, i)) {
        const match = /^title:\s*(.+?)\s*$/.exec(line);
        if (match) title = match[1]!.replace(/^(["'])(.*)\1$/, "$2");
      }
      return { end: i + 1, ...(title ? { title } : {}) };
    }
  }
  return { end: 0 };
}

/** Splits Markdown text into sections. */
export function extractMarkdown(source: string, fallbackTitle: string): ExtractedDocument {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const front = frontMatter(lines);
  const slugger = new Slugger();
  const stack: { level: number; text: string }[] = [];
  const sections: Section[] = [];
  let current: Section = { headingPath: [], anchor: "", paragraphs: [] };
  let block: string[] = [];
  let fence: string | null = null;
  let firstH1: string | undefined;

  const flush = () => {
    const text = block.join("\n").trim();
    if (text) current.paragraphs.push(text);
    block = [];
  };
  const open = (level: number, raw: string) => {
    const text = inlineText(raw);
    if (level === 1 && firstH1 === undefined && text) firstH1 = text;
    sections.push(current);
    while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
    stack.push({ level, text });
    current = { headingPath: stack.map((h) => h.text), anchor: slugger.slug(text), paragraphs: [] };
  };

  for (const line of lines.slice(front.end)) {
    if (fence !== null) {
      block.push(line);
      const close = FENCE.exec(line);
      if (
        close &&
        close[1]![0] === fence[0] &&
        close[1]!.length >= fence.length &&
        !line.trim().slice(close[1]!.length).trim()
      ) {
        fence = null;
        flush();
      }
      continue;
    }
    const fenceOpen = FENCE.exec(line);
    if (fenceOpen) {
      flush();
      fence = fenceOpen[1]!;
      block.push(line);
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      flush();
      open(atx[1]!.length, atx[2]!.replace(/[ \t]+#+[ \t]*$/, "").replace(/^[ \t]*#+[ \t]*$/, ""));
      continue;
    }
    const setext = SETEXT.exec(line);
    if (setext && block.length > 0 && !/^ {0,3}([-*+]|\d+[.)])[ \t]/.test(block[0]!)) {
      const text = block.join(" ");
      block = [];
      open(setext[1]![0] === "=" ? 1 : 2, text);
      continue;
    }
    if (line.trim() === "") flush();
    else if (block.length === 0 && THEMATIC_BREAK.test(line)) continue;
    else block.push(line);
  }
  flush();
  sections.push(current);
  return {
    title: front.title ?? firstH1 ?? fallbackTitle,
    sections: sections.filter((s) => s.paragraphs.length > 0),
  };
}
