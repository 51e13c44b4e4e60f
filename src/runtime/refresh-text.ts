/**
 * How a refresh finds a cited passage again: page text and passages are compared normalised, not
 * byte for byte. A page read again comes back as Markdown that escapes what looks like syntax
 * (`1\. \*\*Key\*\* finding \[5\]`), while a search snippet holds the same words plain, cut at both
 * ends (often mid-word, marked with `…` or not) and running across paragraphs. Normalised, both
 * read `1. key finding [5]`; a passage is found when each piece of its normalised core (the text
 * between the snippet's ellipses) occurs, in order, in the normalised page text. A changed figure
 * or word still differs after normalisation, so a real change is still seen.
 */

/** Characters Markdown lets a backslash escape (CommonMark: ASCII punctuation). */
const ESCAPE = /\\([!-/:-@[-`{-~])/g;
/** A Markdown link or image whose brackets are not escaped: its text stays. */
const LINK = /!?(?<!\\)\[((?:\\.|[^\]\\])*)(?<!\\)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"]*")?\)/g;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
/** Pieces of a cut snippet shorter than this are not looked for (a stray "of" finds anything). */
const MIN_PIECE = 4;

/**
 * `text` normalised for comparison: NFKC, lower case, HTML entities decoded, Markdown link targets,
 * backslash escapes, emphasis and code markers, heading, list and quote markers standing alone
 * (at a line's start or, once a snippet has run the lines together, anywhere) and table pipes removed, typographic quotes and dashes folded, every run of white space one space.
 */
export function normaliseText(text: string): string {
  const plain = text
    .normalize("NFKC")
    .replace(/&(#\d+|#x[\da-f]+|[a-z]+);/gi, (m, name: string) => entity(m, name))
    .replace(LINK, "$1")
    .replace(ESCAPE, "$1")
    // Heading, list and quote markers wherever they stand alone: a snippet runs lines together.
    .replace(/(^|\s)(?:#{1,6}|[-+>])(?=\s|$)/g, "$1")
    // Emphasis and code markers, escaped or not: a snippet holds the page's literal `**` plain.
    .replace(/\*+|`+|~~/g, "")
    .replace(/(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu, "")
    .replace(/[‘’‚‛′]/g, "'")
    .replace(/[“”„‟″]/g, '"')
    .replace(/[‐‑‒–—―−]/g, "-")
    .replace(/\s*\|\s*/g, " ");
  return plain.toLowerCase().replace(/\s+/g, " ").trim();
}

function entity(match: string, name: string): string {
  const lower = name.toLowerCase();
  if (lower.startsWith("#x")) return safeChar(Number.parseInt(lower.slice(2), 16)) ?? match;
  if (lower.startsWith("#")) return safeChar(Number.parseInt(lower.slice(1), 10)) ?? match;
  return ENTITIES[lower] ?? match;
}

function safeChar(code: number): string | undefined {
  return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

/**
 * The pieces of a passage to look for, normalised: split at its ellipses (`…`, `...`), each piece
 * cut at an ellipsis losing the partial word there, pieces too short to say anything left out.
 * A passage without ellipses is one piece.
 */
export function passagePieces(passage: string): string[] {
  // NFKC turns `…` into `...`; a run of three or more dots is a cut. A word the cut touches
  // (`…ured`, `accor…`) is partial; one a space keeps apart from it is whole.
  const parts = normaliseText(passage).split(/(\s?)\.{3,}(\s?)/);
  const pieces: string[] = [];
  for (let i = 0; i < parts.length; i += 3) {
    let piece = parts[i]!;
    if (i > 0 && !parts[i - 1]) piece = piece.replace(/^\S*/, "");
    if (i + 1 < parts.length && !parts[i + 1]) piece = piece.replace(/\S*$/, "");
    piece = piece.trim();
    if (piece.length >= MIN_PIECE) pieces.push(piece);
  }
  return pieces;
}

/**
 * Whether `passage` (a page excerpt or a search snippet, cut or whole) is still in `text` (a page's
 * text or a snippet served now): every piece of it (see {@link passagePieces}) occurs in the
 * normalised text, in order. A passage with no piece long enough is found only in a text that
 * holds its whole normalised form.
 */
export function passageFound(passage: string, text: string): boolean {
  const haystack = normaliseText(text);
  const pieces = passagePieces(passage);
  if (pieces.length === 0) {
    const whole = normaliseText(passage);
    return whole.length > 0 && haystack.includes(whole);
  }
  let from = 0;
  for (const piece of pieces) {
    const at = haystack.indexOf(piece, from);
    if (at < 0) return false;
    from = at + piece.length;
  }
  return true;
}
