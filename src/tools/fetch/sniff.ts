/**
 * Content-type sniffing: what a fetched body really is, from its bytes first and its declared
 * `Content-Type` second (servers lie — HTML served as text/plain, PDFs as text/html, error
 * pages as application/pdf).
 */

/** What a body is. */
export type SniffedKind = "html" | "pdf" | "text" | "markdown" | "binary";

/** The result of sniffing. */
export interface SniffResult {
  kind: SniffedKind;
  /** The declared media type without parameters, lower-cased; empty when none. */
  declared: string;
  /** True when the bytes contradict the declared type. */
  mismatch: boolean;
}

const HEAD_BYTES = 1024;

/** Tags whose presence at the start marks HTML (after the WHATWG sniffing list). */
const HTML_START =
  /^(?:<!doctype\s+html|<html|<head|<body|<script|<iframe|<h1|<div|<font|<table|<a|<style|<title|<b|<br|<p|<meta|<link|<!--)[\s>/]/i;

const BINARY_MAGIC: readonly number[][] = [
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0x47, 0x49, 0x46, 0x38], // GIF
  [0xff, 0xd8, 0xff], // JPEG
  [0x50, 0x4b, 0x03, 0x04], // ZIP (docx, xlsx, epub…)
  [0x1f, 0x8b], // gzip
  [0x52, 0x49, 0x46, 0x46], // RIFF (webp, wav, avi)
  [0x4f, 0x67, 0x67, 0x53], // Ogg
  [0x00, 0x00, 0x01, 0x00], // ICO
  [0x7f, 0x45, 0x4c, 0x46], // ELF
];

/** The media type of a `Content-Type` header value, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

function startsWith(bytes: Uint8Array, magic: readonly number[], at = 0): boolean {
  return magic.every((b, i) => bytes[at + i] === b);
}

/** The first bytes as text for marker checks (UTF-16 when it has a BOM, else Latin-1). */
function headText(bytes: Uint8Array): string {
  const head = bytes.subarray(0, HEAD_BYTES);
  if (startsWith(head, [0xff, 0xfe])) return new TextDecoder("utf-16le").decode(head);
  if (startsWith(head, [0xfe, 0xff])) return new TextDecoder("utf-16be").decode(head);
  return new TextDecoder("latin1").decode(head);
}

/** True when the head looks like an HTML document. */
export function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = headText(bytes)
    .replace(/^\uFEFF/, "")
    .replace(/^\u00EF\u00BB\u00BF/, "")
    .trimStart();
  if (HTML_START.test(head)) return true;
  // XHTML: an XML declaration followed by an html root.
  return /^<\?xml[^>]*>\s*(?:<!doctype\s+html[^>]*>\s*)?<html[\s>]/i.test(head);
}

function isBinary(bytes: Uint8Array): boolean {
  if (BINARY_MAGIC.some((magic) => startsWith(bytes, magic))) return true;
  if (startsWith(bytes, [0xff, 0xfe]) || startsWith(bytes, [0xfe, 0xff])) return false;
  const head = bytes.subarray(0, HEAD_BYTES);
  return head.includes(0);
}

function isPdf(bytes: Uint8Array): boolean {
  return new TextDecoder("latin1").decode(bytes.subarray(0, HEAD_BYTES)).includes("%PDF-");
}

const MARKDOWN_TYPES = new Set(["text/markdown", "text/x-markdown", "text/md"]);
const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

function isTextual(type: string): boolean {
  return (
    type === "" ||
    type === "application/octet-stream" ||
    type.startsWith("text/") ||
    type.endsWith("+xml") ||
    type.endsWith("+json") ||
    ["application/json", "application/xml", "application/javascript", "application/x-ndjson"].includes(type)
  );
}

/**
 * Sniffs what `bytes` are. Order: PDF magic, binary signatures, a declared (or URL-named)
 * Markdown file, HTML markers, the declared type, text.
 */
export function sniffContent(bytes: Uint8Array, contentType?: string, url?: string): SniffResult {
  const declared = mediaType(contentType);
  const result = (kind: SniffedKind, mismatch: boolean): SniffResult => ({ kind, declared, mismatch });
  if (isPdf(bytes)) return result("pdf", declared !== "application/pdf");
  if (isBinary(bytes))
    return result("binary", isTextual(declared) && declared !== "application/octet-stream");
  const path = url ? safePath(url) : "";
  const mdByName = /\.(md|markdown|mdown)$/i.test(path);
  if (MARKDOWN_TYPES.has(declared)) return result("markdown", false);
  if (mdByName && (declared === "" || declared === "text/plain" || declared === "application/octet-stream")) {
    return result("markdown", false);
  }
  if (looksLikeHtml(bytes)) return result("html", declared !== "" && !HTML_TYPES.has(declared));
  if (HTML_TYPES.has(declared)) return result("html", false);
  if (isTextual(declared)) return result("text", false);
  return result("binary", false);
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "";
  }
}
