/**
 * The prose of a Markdown report: paragraphs, list items, headings and table rows with the
 * markup, links and citation markers removed, and a sentence splitter for English-like and
 * Chinese/Japanese text. Code blocks, and by default the references section, are left out.
 */

import { headingLines, readMarkdown, referencesSpans } from "../../core/markdown.ts";

/** One block of prose. */
export interface ProseUnit {
  /** The cleaned text. */
  text: string;
  /** 1-based line where the block starts. */
  line: number;
  /** What the block was in the Markdown. */
  kind: "paragraph" | "heading" | "list-item" | "table-row";
}

/** Options of {@link proseUnits}. */
export interface ProseOptions {
  /**
   * Leave out the references sections (under a "References" / "Sources" / "参考文献" heading or
   * stand-alone title line, see `isReferencesTitle`), default true.
   */
  skipReferences?: boolean;
  /** Include headings as units (default true). */
  includeHeadings?: boolean;
}

const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;
const RULE = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;

/** Removes inline Markdown: images, links (keeping their text), citations, code, emphasis, HTML. */
export function cleanInline(text: string): string {
  return text
    .replace(/<sup>[\s\S]*?<\/sup>/gi, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<\/?[A-Za-z][^>]*>/g, "")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)/g, "$1")
    .replace(/\[\^[^\]]+\]/g, "")
    .replace(/\[(?:E?\d+(?:\s*[-–,]\s*E?\d+)*)\]/g, "")
    .replace(/`[^`]*`/g, "")
    .replace(/https?:\/\/\S+/g, "")
    .replace(/\*\*|__|\*|~~/g, "")
    .replace(/[ \t]+/g, " ")
    .trim();
}

/** The prose blocks of `markdown`, in document order. */
export function proseUnits(markdown: string, options: ProseOptions = {}): ProseUnit[] {
  const { skipReferences = true, includeHeadings = true } = options;
  const units: ProseUnit[] = [];
  let current: { parts: string[]; line: number; kind: ProseUnit["kind"] } | null = null;
  const flush = () => {
    if (current) {
      const text = cleanInline(current.parts.join(" "));
      if (text !== "") units.push({ text, line: current.line, kind: current.kind });
    }
    current = null;
  };
  const doc = readMarkdown(markdown);
  const skipped = skipReferences ? referencesSpans(doc) : [];
  const headings = new Map(doc.headings.map((h) => [h.line, h]));
  const inHeading = new Set(doc.headings.flatMap(headingLines));
  for (const { text, line, inCode } of doc.lines) {
    if (skipped.some((s) => line >= s.start && line <= s.end)) {
      flush();
      continue;
    }
    const heading = headings.get(line);
    if (heading) {
      flush();
      if (includeHeadings && heading.title !== "") {
        units.push({ text: cleanInline(heading.title), line, kind: "heading" });
      }
      continue;
    }
    if (inHeading.has(line)) continue;
    if (inCode || text.trim() === "" || RULE.test(text)) {
      flush();
      continue;
    }
    const trimmed = text.trim();
    if (trimmed.startsWith("|")) {
      flush();
      if (TABLE_SEPARATOR.test(trimmed)) continue;
      const cells = trimmed
        .replace(/^\|/, "")
        .replace(/(?<!\\)\|$/, "")
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim())
        .filter((cell) => cell !== "");
      const row = cleanInline(cells.join(" | "));
      if (row !== "") units.push({ text: row, line, kind: "table-row" });
      continue;
    }
    const body = trimmed.replace(/^(?:>\s?)+/, "");
    if (LIST_ITEM.test(body)) {
      flush();
      current = { parts: [body.replace(LIST_ITEM, "")], line, kind: "list-item" };
      continue;
    }
    if (current === null) current = { parts: [], line, kind: "paragraph" };
    current.parts.push(body);
  }
  flush();
  return units;
}

const ABBREVIATIONS = new Set(
  [
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "st",
    "vs",
    "etc",
    "e.g",
    "i.e",
    "u.s",
    "u.k",
    "u.n",
    "e.u",
    "inc",
    "ltd",
    "co",
    "corp",
    "jr",
    "sr",
    "no",
    "fig",
    "approx",
    "est",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "al",
    "cf",
    "ca",
    "vol",
    "pp",
  ].map((a) => a.toLowerCase()),
);

const CJK_END = /[。！？；]/;
const CLOSERS = /["'”’」』）)\]]/;

/** Splits text into sentences: after `。！？；` always, after `.!?` when followed by space and not an abbreviation. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  const push = (end: number) => {
    const sentence = text.slice(start, end).trim();
    if (sentence !== "") out.push(sentence);
    start = end;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (CJK_END.test(c)) {
      let end = i + 1;
      while (end < text.length && CLOSERS.test(text[end]!)) end++;
      push(end);
      i = end - 1;
      continue;
    }
    if (c !== "." && c !== "!" && c !== "?") continue;
    let end = i + 1;
    while (end < text.length && (text[end] === "." || text[end] === "!" || text[end] === "?")) end++;
    while (end < text.length && CLOSERS.test(text[end]!)) end++;
    if (end < text.length && !/\s/.test(text[end]!)) continue;
    let next = end;
    while (next < text.length && /\s/.test(text[next]!)) next++;
    if (next < text.length && /\p{Ll}/u.test(text[next]!)) continue;
    if (c === ".") {
      const word = /([\p{L}.]+)$/u.exec(text.slice(start, i))?.[1] ?? "";
      const bare = word.replace(/^\.+/, "").toLowerCase();
      if (ABBREVIATIONS.has(bare) || /^\p{Lu}$/u.test(word)) continue;
    }
    push(end);
    i = end - 1;
  }
  push(text.length);
  return out;
}
