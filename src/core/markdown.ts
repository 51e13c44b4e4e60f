/**
 * One reading of a Markdown document, on marked's lexer (CommonMark block rules): its lines,
 * which of them are fenced code (``` and ~~~, an unclosed fence running to the end of its
 * container), its headings (ATX and setext, also inside lists and block quotes) with levels
 * and line numbers, and the lines that name a references section. Every check, cleaner and
 * parser that needs to know where code, headings or the references are reads it here.
 */

import type { Token, Tokens } from "marked";
import { lazyModule } from "./lazy-module.ts";

/** marked, loaded on the first Markdown it reads. */
const marked = lazyModule<typeof import("marked")>("marked");

/** One line of a Markdown document. */
export interface MarkdownLine {
  /** 1-based line number. */
  line: number;
  /** The text, without its line ending. */
  text: string;
  /** True for the lines of a fenced code block, fences included. */
  inCode: boolean;
}

/** A heading. */
export interface MarkdownHeading {
  level: number;
  /** The title as written (inline Markdown kept, closing `#`s and surrounding space removed). */
  title: string;
  /** 1-based line of the heading; for a setext heading, its first text line. */
  line: number;
  /** Last line of the heading: the underline of a setext heading, else `line`. */
  endLine: number;
  style: "atx" | "setext";
}

/** A fenced code block. */
export interface CodeFence {
  /** 1-based line of the opening fence. */
  start: number;
  /** 1-based last line: the closing fence, or the container's last line when unclosed. */
  end: number;
  closed: boolean;
  marker: "`" | "~";
}

/** A line naming a references section (see {@link isReferencesTitle}). */
export interface ReferencesTitle {
  line: number;
  /** The heading's level, or null for a stand-alone line like `**Sources:**` or `References:`. */
  level: number | null;
}

/** A read Markdown document. */
export interface MarkdownDocument {
  lines: MarkdownLine[];
  headings: MarkdownHeading[];
  fences: CodeFence[];
  /** Headings and stand-alone lines outside code that name a references section, in order. */
  referenceTitles: ReferencesTitle[];
}

/** A span of lines, 1-based and inclusive. */
export interface LineSpan {
  start: number;
  end: number;
}

/**
 * Titles of a references section, as the report writers, the benchmark reports and models
 * write them (singular and plural, several languages).
 */
const REFERENCE_WORDS = [
  "references?",
  "reference list",
  "sources?",
  "source list",
  "sources et références",
  "bibliography",
  "works cited",
  "citations",
  "参考文献",
  "參考文獻",
  "参考文献一覧",
  "参考资料",
  "參考資料",
  "参考来源",
  "引用来源",
  "引用文献",
  "引用",
  "资料来源",
  "資料來源",
  "来源",
  "出处",
  "出典",
  "참고\\s*문헌",
  "참고\\s*자료",
  "literatur(?:verzeichnis)?",
  "quellen",
  "références",
  "referencias",
  "fuentes",
  "referências",
  "fontes",
  "riferimenti",
  "fonti",
  "bibliografia",
  "bibliographie",
  "bibliografía",
];
const REFERENCES_TITLE = new RegExp(
  `^(?:\\d+(?:\\.\\d+)*\\.?\\s*)?(?:${REFERENCE_WORDS.join("|")})\\s*[:：]?$`,
  "i",
);
const EMPHASIS_OPEN = /^(?:\*\*|__)\s*/;
const EMPHASIS_CLOSE = /\s*(?:\*\*|__)(\s*[:：])?\s*$/;

/**
 * True when a heading title (or a stand-alone line's text) names a references section:
 * "References", "Sources", "Bibliography", "参考文献", "Quellen", … optionally numbered ("7.",
 * "7.1"), bold, and followed by a colon.
 */
export function isReferencesTitle(title: string): boolean {
  const bare = title.trim().replace(EMPHASIS_OPEN, "").replace(EMPHASIS_CLOSE, "$1").trim();
  return REFERENCES_TITLE.test(bare);
}

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

function lineCount(raw: string): number {
  return raw.split("\n").length - 1;
}

/** Collects headings and fences from lexed tokens whose first line is `line`. */
function walk(
  tokens: readonly Token[],
  line: number,
  headings: MarkdownHeading[],
  fences: CodeFence[],
): void {
  for (const token of tokens) {
    const body = token.raw.replace(/\n+$/, "");
    const last = line + lineCount(body);
    if (token.type === "heading") {
      const heading = token as Tokens.Heading;
      headings.push({
        level: heading.depth,
        title: heading.text.replace(/\s*\n\s*/g, " ").trim(),
        line,
        endLine: last,
        style: last > line ? "setext" : "atx",
      });
    } else if (token.type === "code" && (token as Tokens.Code).codeBlockStyle !== "indented") {
      const lines = body.split("\n");
      const open = /^ {0,3}(`{3,}|~{3,})/.exec(lines[0]!)?.[1] ?? "```";
      const close = lines.length > 1 ? FENCE_LINE.exec(lines.at(-1)!)?.[1] : undefined;
      const closed = close !== undefined && close[0] === open[0] && close.length >= open.length;
      fences.push({ start: line, end: last, closed, marker: open[0] === "~" ? "~" : "`" });
    } else if (token.type === "list") {
      let itemLine = line;
      for (const item of (token as Tokens.List).items) {
        walk(item.tokens, itemLine, headings, fences);
        itemLine += lineCount(item.raw);
      }
    } else if (token.type === "blockquote") {
      walk((token as Tokens.Blockquote).tokens, line, headings, fences);
    }
    line += lineCount(token.raw);
  }
}

/** Text of a stand-alone line that may name a references section: `#References`, `**Sources:**`. */
function standaloneTitle(text: string): string | null {
  if (!/^\s{0,3}\S/.test(text)) return null;
  return text.trim().replace(/^#{1,6}/, "");
}

/**
 * marked's block and inline tokens of `markdown` (GFM: tables, strikethrough, autolinks), read
 * as {@link readMarkdown} reads it: the tree a renderer that is not HTML walks.
 */
export function markdownTokens(markdown: string): Token[] {
  // marked reads a lone \r as a line break; a space keeps the line numbers of a split at \r?\n.
  return new (marked().Lexer)().lex(
    markdown
      .split(/\r?\n/)
      .map((t) => t.replace(/\r/g, " "))
      .join("\n"),
  );
}

/** Reads `markdown` (lines split at `\n` or `\r\n`). */
export function readMarkdown(markdown: string): MarkdownDocument {
  const texts = markdown.split(/\r?\n/);
  const headings: MarkdownHeading[] = [];
  const fences: CodeFence[] = [];
  walk(markdownTokens(markdown), 1, headings, fences);
  headings.sort((a, b) => a.line - b.line);
  fences.sort((a, b) => a.start - b.start);
  const inCode = new Set<number>();
  for (const f of fences) for (let n = f.start; n <= f.end; n++) inCode.add(n);
  const lines = texts.map((text, i) => ({ line: i + 1, text, inCode: inCode.has(i + 1) }));
  const inHeading = new Set(headings.flatMap(headingLines));
  const referenceTitles: ReferencesTitle[] = [];
  const byLine = new Map(headings.map((h) => [h.line, h]));
  for (const l of lines) {
    if (l.inCode) continue;
    const heading = byLine.get(l.line);
    if (heading) {
      if (isReferencesTitle(heading.title)) referenceTitles.push({ line: l.line, level: heading.level });
    } else if (!inHeading.has(l.line)) {
      const title = standaloneTitle(l.text);
      if (title !== null && isReferencesTitle(title)) referenceTitles.push({ line: l.line, level: null });
    }
  }
  return { lines, headings, fences, referenceTitles };
}

/**
 * The span of the references section named at `title`: from its title line to the line before
 * the next heading of the same or a higher level (any heading for a stand-alone title line),
 * or to the document's end.
 */
export function referencesSpan(doc: MarkdownDocument, title: ReferencesTitle): LineSpan {
  const next = doc.headings.find(
    (h) => h.line > title.line && (title.level === null || h.level <= title.level),
  );
  return { start: title.line, end: next ? next.line - 1 : doc.lines.length };
}

/** The spans of every references section, merged where they overlap. */
export function referencesSpans(doc: MarkdownDocument): LineSpan[] {
  const spans: LineSpan[] = [];
  for (const title of doc.referenceTitles) {
    const span = referencesSpan(doc, title);
    const previous = spans.at(-1);
    if (previous && span.start <= previous.end) previous.end = Math.max(previous.end, span.end);
    else spans.push(span);
  }
  return spans;
}

/** The line numbers a heading spans (one for ATX, the text lines and underline for setext). */
export function headingLines(heading: MarkdownHeading): number[] {
  return Array.from({ length: heading.endLine - heading.line + 1 }, (_, i) => heading.line + i);
}

/** The lines outside fenced code. */
export function plainLines(doc: MarkdownDocument): MarkdownLine[] {
  return doc.lines.filter((l) => !l.inCode);
}

/** The lines of `markdown` with fenced code marked. */
export function markdownLines(markdown: string): MarkdownLine[] {
  return readMarkdown(markdown).lines;
}

/** The level and title of a line that is an ATX heading on its own (`## Title`), or null. */
export function parseHeading(text: string): { level: number; title: string } | null {
  if (text.includes("\n")) return null;
  const heading = readMarkdown(text).headings[0];
  return heading && heading.style === "atx" ? { level: heading.level, title: heading.title } : null;
}

/** The line ending a document uses (`\r\n` when its first line break is one, else `\n`). */
export function lineEnding(markdown: string): string {
  const index = markdown.indexOf("\n");
  return index > 0 && markdown[index - 1] === "\r" ? "\r\n" : "\n";
}
