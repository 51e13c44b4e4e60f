/**
 * Cleaning the text PDF.js extracts from one PDF page, and telling whether it is text at all.
 *
 * A page whose fonts lack a Unicode map (no `ToUnicode`, an `Identity-H` encoding) comes out
 * as glyph ids read as characters: mostly C0/C1 control characters, private-use and unassigned
 * code points, some stray punctuation. Such a page is garbage to a reader and to the index, so
 * it is detected ({@link hasExtractableText}) and left out, and named (`page 11: no extractable
 * text`) where the page list is reported. The text of a kept page loses its control characters
 * and joins words hyphenated across line ends (`exam-\nple` → `example`).
 */

/** Characters that are never text: controls (but tab and line feed), private use, unassigned, U+FFFD. */
const BROKEN = /[\p{Cc}\p{Co}\p{Cn}\p{Cs}\uFFFD]/u;
const BROKEN_GLOBAL = /[\p{Cc}\p{Co}\p{Cn}\p{Cs}\uFFFD]/gu;
const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/** Below this share of letters and digits among the visible characters a page is not text. */
export const MIN_WORD_CHARACTER_SHARE = 0.5;
/** Above this share of broken characters (controls, private use, unassigned) a page is not text. */
export const MAX_BROKEN_SHARE = 0.1;

/** Counts of the visible (non-whitespace) characters of a page's text. */
export interface TextQuality {
  /** Visible characters. */
  visible: number;
  /** Letters and digits. */
  wordCharacters: number;
  /** Control, private-use, unassigned and replacement characters. */
  broken: number;
}

/** Counts the visible, word and broken characters of `text`. */
export function textQuality(text: string): TextQuality {
  let visible = 0;
  let wordCharacters = 0;
  let broken = 0;
  for (const char of text) {
    if (char === " " || char === "\n" || char === "\t" || char === "\r") continue;
    if (BROKEN.test(char)) {
      visible++;
      broken++;
    } else if (!/\s/u.test(char)) {
      visible++;
      if (WORD_CHARACTER.test(char)) wordCharacters++;
    }
  }
  return { visible, wordCharacters, broken };
}

/**
 * True when a page's raw text is text: it has visible characters, at most 10 % of them are
 * broken (controls, private use, unassigned) and at least half are letters or digits.
 */
export function hasExtractableText(raw: string): boolean {
  const { visible, wordCharacters, broken } = textQuality(raw);
  if (visible === 0) return false;
  return broken / visible <= MAX_BROKEN_SHARE && wordCharacters / visible >= MIN_WORD_CHARACTER_SHARE;
}

/**
 * Joins words hyphenated across line ends: a letter, a hyphen (or soft hyphen) at the end of a
 * line, and a lower-case letter starting the next line become one word (`exam-\nple` →
 * `example`; `Covid-\n19` and `Jean-\nPaul` are left alone). A soft hyphen elsewhere is dropped.
 */
export function joinHyphenatedLines(text: string): string {
  return text.replace(/(\p{L})[-\u00AD\u2010][ \t]*\n[ \t]*(\p{Ll})/gu, "$1$2").replaceAll("\u00AD", "");
}

/** A page's text tidied: line ends normalised, broken characters dropped, hyphenation joined, blank runs collapsed. */
export function cleanPdfPageText(raw: string): string {
  const text = raw
    .replace(/\r\n?/g, "\n")
    .replace(/\f/g, "\n")
    .replace(BROKEN_GLOBAL, (char) => (char === "\n" || char === "\t" ? char : ""));
  return joinHyphenatedLines(text)
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** One page read: its clean text, or empty with `extractable: false` when it is not text. */
export function readPdfPageText(raw: string): { text: string; extractable: boolean } {
  if (!hasExtractableText(raw)) return { text: "", extractable: false };
  const text = cleanPdfPageText(raw);
  return text ? { text, extractable: true } : { text: "", extractable: false };
}

/** `pages 3–5, 11` (or `page 11`): a sorted list of page numbers with runs as ranges. */
export function formatPageList(pages: readonly number[]): string {
  const sorted = [...new Set(pages)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const start = sorted[i]!;
    let end = start;
    while (sorted[i + 1] === end + 1) end = sorted[++i]!;
    parts.push(end === start ? `${start}` : end === start + 1 ? `${start}, ${end}` : `${start}–${end}`);
  }
  return `${sorted.length === 1 ? "page" : "pages"} ${parts.join(", ")}`;
}
