/**
 * Untrusted text (model output, web pages, search snippets, the question) never reaches a
 * terminal or a stored record with its control characters live: escape sequences (CSI, OSC,
 * the 8-bit C1 forms) and other control characters are either stripped (text that is stored or
 * written into a report) or shown escaped as `\xHH` (text printed on a terminal). Newlines and
 * tabs are kept where the text is multi-line. Pure functions, no I/O.
 */

/** A complete escape sequence: CSI, OSC/DCS/SOS/PM/APC strings (terminated), or a two-byte ESC form. */
const SEQUENCE =
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b[\]P^_X]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)|\x1b[ -/]*[0-~]/g;

/** Control characters other than tab and newline: C0, DEL and C1. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** The same, not global (for tests of presence). */
const HAS_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/**
 * Bidirectional embedding, override and isolate controls: printed live they reorder what a
 * terminal shows ("Trojan Source"), so terminal output shows them escaped (`\u202e`). Stored
 * text keeps them: right-to-left writing may use them legitimately.
 */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/** Every control character, tab and newline included, and the bidirectional controls. */
const ANY_CONTROL = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

const unicodeEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * Removes terminal escape sequences and control characters, keeping tab and newline
 * (`\r\n` and a lone `\r` become `\n`). For text that is stored or written into a report.
 */
export function stripControlChars(text: string): string {
  if (!ANY_CONTROL.test(text)) return text;
  return text.replace(/\r\n?/g, "\n").replace(SEQUENCE, "").replace(CONTROL, "");
}

/** True when the text holds a control character other than tab and newline. */
export function hasControlChars(text: string): boolean {
  return HAS_CONTROL.test(text);
}

function hex(c: string): string {
  return `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;
}

/**
 * Multi-line text for a terminal: newlines and tabs kept (`\r\n` becomes `\n`), every other
 * control character shown escaped (`ESC` as `\x1b`, `BEL` as `\x07`), so nothing is interpreted.
 */
export function terminalText(text: string): string {
  if (!ANY_CONTROL.test(text)) return text;
  return text.replace(/\r\n/g, "\n").replace(CONTROL, hex).replace(BIDI, unicodeEscape);
}

/**
 * One line for a terminal: newlines and tabs (with the spaces around newlines) become one
 * space, every other control character is shown escaped.
 */
export function terminalLine(text: string): string {
  if (!ANY_CONTROL.test(text)) return text;
  return text
    .replace(/[ \t]*(?:\r\n|\n|\r)[ \t]*/g, " ")
    .replace(/\t/g, " ")
    .replace(CONTROL, hex)
    .replace(BIDI, unicodeEscape);
}

/**
 * `JSON.stringify` for output read on a terminal: JSON already escapes C0 characters; this also
 * escapes DEL, the C1 range, the line/paragraph separators and the bidirectional controls
 * (valid JSON either way).
 */
export function terminalJson(value: unknown, space?: number): string {
  return (JSON.stringify(value, null, space) ?? "null").replace(
    /[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
