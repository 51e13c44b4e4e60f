/**
 * Inline Markdown (marked's inline tokens) as runs of a Word paragraph: bold, italics,
 * strikethrough, code as monospace, links, line breaks, and numbered citations (`[3]`,
 * `[1, 4]`) as internal links to their entry in the References section.
 *
 * Untrusted text stays text: every string becomes a text run (the library writes it as XML
 * text), a link becomes a hyperlink only when its target is an http(s) URL, raw HTML is shown
 * as written, and images are never embedded (a link to an http(s) image, else its text).
 */

import {
  ExternalHyperlink,
  InternalHyperlink,
  type ParagraphChild,
  type IRunOptions as RunOptions,
  TextRun,
} from "docx";
import type { Token, Tokens } from "marked";
import { stripControlChars } from "../core/terminal-text.ts";

/** The monospace font of code spans and code blocks. */
export const CODE_FONT = "Consolas";

/** The bookmark of reference `n` in the References section (a Word bookmark name). */
export const referenceBookmark = (n: number) => `ref_${n}`;

/** Formatting carried down to the runs of nested tokens. */
export type RunStyle = Omit<RunOptions, "text" | "children" | "break">;

/** What inline rendering needs to know about the document. */
export interface InlineContext {
  /** The reference numbers the References section has (only these become citation links). */
  references: ReadonlySet<number>;
  /**
   * Claim marks by the ordinal of the citation they follow (claim-marks.ts), and the count of
   * citations met so far; without them no mark is written.
   */
  marks?: {
    byOrdinal: ReadonlyMap<number, { numbers: string; verdict: string; label: string }>;
    seen: number;
  };
}

/** The colour of a claim mark by verdict (as the HTML report's). */
const MARK_COLOR: Record<string, string> = {
  supported: "1A7F37",
  partial: "9A6700",
  unsupported: "CF222E",
  unchecked: "5D6470",
};

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  colon: ":",
  lpar: "(",
  rpar: ")",
  num: "#",
  sol: "/",
  commat: "@",
};

/**
 * Decodes the character references Markdown text carries (the report's safe Markdown writes a
 * raw `<` as `&lt;`), so the document shows the characters; unknown names stay as written.
 * Control characters (which XML cannot hold) are removed.
 */
export function plainText(text: string): string {
  const decoded = text.replace(
    /&#x([0-9a-f]{1,6});|&#(\d{1,7});|&([a-z][a-z0-9]*);/gi,
    (whole, hex?: string, dec?: string, name?: string) => {
      if (hex !== undefined || dec !== undefined) {
        const cp = hex !== undefined ? Number.parseInt(hex, 16) : Number.parseInt(dec!, 10);
        return cp > 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : "\ufffd";
      }
      return NAMED_ENTITIES[name!.toLowerCase()] ?? whole;
    },
  );
  return xmlSafe(stripControlChars(decoded));
}

/** Lone surrogates, which XML cannot hold either, as U+FFFD. */
function xmlSafe(text: string): string {
  return text.replace(
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\ufffe\uffff]/g,
    "\ufffd",
  );
}

/** An http(s) URL a document may link to, normalised; null for any other target. */
export function httpUrl(target: string): string | null {
  const trimmed = target.trim();
  if (!/^https?:\/\/\S+$/i.test(trimmed) || !URL.canParse(trimmed)) return null;
  const url = new URL(trimmed);
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
}

/** A text run; `text` is shown as it is (a soft line break as a space). */
export function textRun(text: string, style: RunStyle = {}): TextRun {
  return new TextRun({ ...style, text: plainText(text).replace(/\n/g, " ") });
}

/**
 * A run of plain text (a title, a URL; not Markdown): shown literally, no character reference
 * decoded, control characters removed.
 */
export function literalRun(text: string, style: RunStyle = {}): TextRun {
  return new TextRun({ ...style, text: xmlSafe(stripControlChars(text)) });
}

/** Plain text on one line: control characters removed, runs of white space as one space. */
export function oneLine(text: string): string {
  return xmlSafe(stripControlChars(text)).replace(/\s+/g, " ").trim();
}

/** A run of code: shown literally (no character references decoded), in the monospace font. */
export function codeRun(text: string, style: RunStyle = {}): TextRun {
  return literalRun(text, { ...style, font: CODE_FONT });
}

/** A hyperlink to an http(s) URL showing `children`, or the children alone for any other target. */
export function externalLink(href: string, children: ParagraphChild[]): ParagraphChild[] {
  const url = httpUrl(href);
  return url ? [new ExternalHyperlink({ link: url, children })] : children;
}

const CITATION = /\[(\d+(?:, ?\d+)*)\]/g;

/** Text with its numbered citations turned into superscript links to the references. */
function citedText(text: string, style: RunStyle, context: InlineContext): ParagraphChild[] {
  const out: ParagraphChild[] = [];
  let last = 0;
  for (const match of text.matchAll(CITATION)) {
    const numbers = match[1]!.split(/, ?/).map(Number);
    if (!numbers.every((n) => context.references.has(n))) continue;
    if (match.index > last) out.push(textRun(text.slice(last, match.index), style));
    const sup = { ...style, superScript: true };
    out.push(textRun("[", sup));
    numbers.forEach((n, i) => {
      if (i > 0) out.push(textRun(", ", sup));
      out.push(
        new InternalHyperlink({
          anchor: referenceBookmark(n),
          children: [textRun(String(n), { ...sup, style: "Hyperlink" })],
        }),
      );
    });
    out.push(textRun("]", sup));
    if (context.marks) {
      const mark = context.marks.byOrdinal.get(context.marks.seen++);
      if (mark && mark.numbers === numbers.join(", "))
        out.push(
          textRun(` ${mark.label}`, { ...sup, bold: true, color: MARK_COLOR[mark.verdict] ?? "5D6470" }),
        );
    }
    last = match.index + match[0].length;
  }
  if (last < text.length) out.push(textRun(text.slice(last), style));
  return out;
}

/**
 * The runs of inline tokens. Adjacent text is joined first (marked splits an undefined `[1]`
 * reference into pieces), so citations are found whole.
 */
export function inlineRuns(
  tokens: readonly Token[] | undefined,
  context: InlineContext,
  style: RunStyle = {},
): ParagraphChild[] {
  const out: ParagraphChild[] = [];
  let pending = "";
  const flush = () => {
    if (pending) out.push(...citedText(pending, style, context));
    pending = "";
  };
  for (const token of tokens ?? []) {
    switch (token.type) {
      case "text": {
        const t = token as Tokens.Text;
        if (t.tokens?.length) {
          flush();
          out.push(...inlineRuns(t.tokens, context, style));
        } else pending += t.text;
        break;
      }
      case "escape":
        pending += (token as Tokens.Escape).text;
        break;
      case "html":
        // Raw HTML is shown as written, never interpreted.
        pending += token.raw;
        break;
      default:
        flush();
        out.push(...nonTextRuns(token, context, style));
    }
  }
  flush();
  return out;
}

function nonTextRuns(token: Token, context: InlineContext, style: RunStyle): ParagraphChild[] {
  switch (token.type) {
    case "strong":
      return inlineRuns((token as Tokens.Strong).tokens, context, { ...style, bold: true });
    case "em":
      return inlineRuns((token as Tokens.Em).tokens, context, { ...style, italics: true });
    case "del":
      return inlineRuns((token as Tokens.Del).tokens, context, { ...style, strike: true });
    case "codespan":
      return [codeRun((token as Tokens.Codespan).text, style)];
    case "br":
      return [new TextRun({ ...style, break: 1 })];
    case "link": {
      const link = token as Tokens.Link;
      const shown = inlineRuns(link.tokens, context, { ...style, style: "Hyperlink" });
      return httpUrl(link.href) ? externalLink(link.href, shown) : inlineRuns(link.tokens, context, style);
    }
    case "image": {
      // Never embedded: a document that loads nothing, as the other formats.
      const image = token as Tokens.Image;
      const label = image.text || image.href;
      return httpUrl(image.href)
        ? externalLink(image.href, [textRun(label, { ...style, style: "Hyperlink" })])
        : [textRun(label, style)];
    }
    default:
      return [textRun("raw" in token ? String(token.raw) : "", style)];
  }
}
