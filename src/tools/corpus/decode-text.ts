/**
 * Deciding whether a file is text and decoding it. A file is binary when its first 8 KB hold
 * a NUL byte (and no UTF-16 byte-order mark), or when the decoded text is more than 5%
 * control characters or replacement characters. Text is UTF-8 when it is valid UTF-8;
 * otherwise the encoding an HTML `<meta charset>` declares, else chardet's guess of a legacy
 * encoding (windows-1252, Shift_JIS, GBK, …) decoded by the platform's TextDecoder.
 */

import type chardetModule from "chardet";
import { lazyModule } from "../../core/lazy-module.ts";

/** chardet, loaded with the first legacy-encoded file (CommonJS). */
const chardet = lazyModule<typeof chardetModule>("chardet");

/** Bytes examined for NUL bytes and for the share of bad characters. */
export const SNIFF_BYTES = 8192;
/** Share of control or replacement characters above which decoded text counts as binary. */
export const MAX_BAD_CHAR_RATIO = 0.05;

/** The outcome of {@link decodeFileText}. */
export type DecodedFile =
  | { ok: true; text: string; encoding: string }
  | { ok: false; reason: "binary"; detail: string };

function canonical(label: string | null | undefined): string | null {
  if (!label) return null;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return null;
  }
}

/** Share of characters in `text` (its first SNIFF_BYTES) that text files do not contain. */
export function badCharRatio(text: string): number {
  const sample = text.slice(0, SNIFF_BYTES);
  if (sample.length === 0) return 0;
  let bad = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    const control =
      (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0c && c !== 0x0d && c !== 0x1b) || c === 0x7f;
    if (control || (c >= 0x80 && c <= 0x9f) || c === 0xfffd) bad++;
  }
  return bad / sample.length;
}

function checked(text: string, encoding: string): DecodedFile {
  const ratio = badCharRatio(text);
  if (ratio > MAX_BAD_CHAR_RATIO) {
    return {
      ok: false,
      reason: "binary",
      detail: `${Math.round(ratio * 100)}% control characters as ${encoding}`,
    };
  }
  return { ok: true, text, encoding };
}

function bomEncoding(bytes: Uint8Array): { encoding: string; skip: number } | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: "utf-8", skip: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: "utf-16le", skip: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: "utf-16be", skip: 2 };
  return null;
}

function metaCharset(bytes: Uint8Array): string | null {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 4096));
  const match = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  return canonical(match?.[1]);
}

/** Decodes a file's bytes as text, or says why it is binary. */
export function decodeFileText(bytes: Uint8Array, options: { html?: boolean } = {}): DecodedFile {
  const bom = bomEncoding(bytes);
  if (bom) {
    const text = new TextDecoder(bom.encoding).decode(bytes.subarray(bom.skip));
    return checked(text, bom.encoding);
  }
  const sample = bytes.subarray(0, SNIFF_BYTES);
  const nul = sample.indexOf(0);
  if (nul >= 0) return { ok: false, reason: "binary", detail: `NUL byte at offset ${nul}` };
  try {
    return checked(new TextDecoder("utf-8", { fatal: true }).decode(bytes), "utf-8");
  } catch {
    // not UTF-8: try a declared or detected legacy encoding
  }
  const declared = options.html ? metaCharset(bytes) : null;
  const guessed = declared ?? canonical(chardet().detect(bytes.subarray(0, 64 * 1024)));
  if (guessed && !/^utf-(8|16|32)/.test(guessed)) {
    return checked(new TextDecoder(guessed).decode(bytes), guessed);
  }
  const invalid = badCharRatio(new TextDecoder("utf-8").decode(sample));
  return {
    ok: false,
    reason: "binary",
    detail: `not valid UTF-8 (${Math.round(invalid * 100)}% invalid in the first 8 KB) and no known encoding`,
  };
}
