/**
 * Character set detection and decoding of fetched text. Order: a byte-order mark (it wins, as
 * in the WHATWG encoding standard), the header's `charset`, an HTML `<meta charset>` or
 * `http-equiv` declaration, valid UTF-8, chardet's guess, and finally UTF-8. Decoding uses
 * the platform TextDecoder, which knows the legacy encodings (windows-1252, shift_jis, gbk,
 * euc-kr, …).
 */

import type chardetModule from "chardet";
import { lazyModule } from "../../core/lazy-module.ts";

/** chardet, loaded with the first page whose encoding must be guessed (CommonJS). */
const chardet = lazyModule<typeof chardetModule>("chardet");

/** Where the charset came from. */
export type CharsetSource = "bom" | "header" | "meta" | "utf8-valid" | "detected" | "default";

/** A decoded text and how its charset was found. */
export interface DecodedText {
  text: string;
  /** The canonical encoding name (`utf-8`, `windows-1252`, `shift_jis`, …). */
  charset: string;
  source: CharsetSource;
}

/** Options of {@link decodeText}. */
export interface DecodeOptions {
  /** The `Content-Type` header value. */
  contentType?: string;
  /** Look for `<meta charset>` declarations (HTML bodies). */
  html?: boolean;
}

const META_SCAN_BYTES = 4096;
const DETECT_SAMPLE_BYTES = 256 * 1024;

/** The canonical name of an encoding label, or null when the platform does not know it. */
export function canonicalCharset(label: string | undefined | null): string | null {
  if (!label) return null;
  try {
    return new TextDecoder(label.trim().replace(/^["']|["']$/g, "")).encoding;
  } catch {
    return null;
  }
}

/** The `charset` parameter of a `Content-Type` value. */
export function headerCharset(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType ?? "");
  return canonicalCharset(match?.[2]);
}

/** The charset an HTML document declares in its first bytes (`<meta charset>` / http-equiv). */
export function metaCharset(bytes: Uint8Array): string | null {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, META_SCAN_BYTES));
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const direct = /\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(tag);
    if (direct) {
      const name = canonicalCharset(direct[1]);
      // A UTF-16 declaration in an ASCII-compatible document means UTF-8 (WHATWG).
      if (name) return name.startsWith("utf-16") ? "utf-8" : name;
    }
  }
  return null;
}

function bomCharset(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return null;
}

function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Decides the charset of `bytes`. */
export function detectCharset(
  bytes: Uint8Array,
  options: DecodeOptions = {},
): { charset: string; source: CharsetSource } {
  const bom = bomCharset(bytes);
  if (bom) return { charset: bom, source: "bom" };
  const declared = headerCharset(options.contentType);
  // A declared UTF-8 that is not valid UTF-8 is a lie worth correcting; other declarations are kept.
  if (declared && (declared !== "utf-8" || isValidUtf8(bytes)))
    return { charset: declared, source: "header" };
  if (options.html) {
    const meta = metaCharset(bytes);
    if (meta && (meta !== "utf-8" || isValidUtf8(bytes))) return { charset: meta, source: "meta" };
  }
  if (isValidUtf8(bytes)) return { charset: "utf-8", source: "utf8-valid" };
  const guess = canonicalCharset(chardet().detect(bytes.subarray(0, DETECT_SAMPLE_BYTES)));
  if (guess) return { charset: guess, source: "detected" };
  return { charset: "utf-8", source: "default" };
}

/** Decodes `bytes` with the detected charset (invalid sequences become U+FFFD). */
export function decodeText(bytes: Uint8Array, options: DecodeOptions = {}): DecodedText {
  const { charset, source } = detectCharset(bytes, options);
  return { text: new TextDecoder(charset).decode(bytes), charset, source };
}
