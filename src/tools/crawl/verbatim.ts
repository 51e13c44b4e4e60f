/**
 * Verbatim checking of excerpts: an excerpt counts only if it occurs in the page text once
 * runs of whitespace are collapsed on both sides. The excerpt returned is the page's own
 * text for that span, so evidence always quotes the source exactly.
 */

/** A text with whitespace runs collapsed to one space, and where each character came from. */
export interface NormalizedText {
  text: string;
  /** `origin[i]` is the index in the original text of `text[i]`. */
  origin: Uint32Array;
}

/** Collapses whitespace runs to one space and trims, keeping a map back to the original. */
export function normalizeWhitespace(text: string): NormalizedText {
  const origin = new Uint32Array(text.length);
  let out = "";
  let pendingSpace = -1;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (/\s/.test(char)) {
      if (pendingSpace < 0 && out.length > 0) pendingSpace = i;
      continue;
    }
    if (pendingSpace >= 0) {
      origin[out.length] = pendingSpace;
      out += " ";
      pendingSpace = -1;
    }
    origin[out.length] = i;
    out += char;
  }
  return { text: out, origin: origin.subarray(0, out.length) };
}

const QUOTE_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['"', '"'],
  ["“", "”"],
  ["'", "'"],
  ["‘", "’"],
  ["«", "»"],
  ["「", "」"],
];

/** A page prepared for repeated excerpt checks. */
export class VerbatimIndex {
  readonly #source: string;
  readonly #normalized: NormalizedText;

  constructor(source: string) {
    this.#source = source;
    this.#normalized = normalizeWhitespace(source);
  }

  /**
   * The page's text for `excerpt`, or null when the excerpt is not in the page. An excerpt
   * wrapped in a pair of quotation marks is also tried without them.
   */
  find(excerpt: string): string | null {
    const direct = this.#locate(excerpt);
    if (direct !== null) return direct;
    const trimmed = excerpt.trim();
    for (const [open, close] of QUOTE_PAIRS) {
      if (trimmed.length > 2 && trimmed.startsWith(open) && trimmed.endsWith(close)) {
        return this.#locate(trimmed.slice(open.length, -close.length));
      }
    }
    return null;
  }

  #locate(excerpt: string): string | null {
    const needle = normalizeWhitespace(excerpt).text;
    if (!needle) return null;
    const at = this.#normalized.text.indexOf(needle);
    if (at < 0) return null;
    const start = this.#normalized.origin[at]!;
    const end = this.#normalized.origin[at + needle.length - 1]! + 1;
    return this.#source.slice(start, end);
  }
}

/** Keeps the excerpts found verbatim in `source` (as the page writes them, deduplicated). */
export function verifyExcerpts(
  source: string,
  excerpts: readonly string[],
): { kept: string[]; dropped: number } {
  const index = new VerbatimIndex(source);
  const kept: string[] = [];
  let dropped = 0;
  for (const excerpt of excerpts) {
    const found = index.find(excerpt);
    if (found === null) dropped++;
    else if (!kept.includes(found)) kept.push(found);
  }
  return { kept, dropped };
}
