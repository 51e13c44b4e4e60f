/**
 * Chunking along the document's structure. Chunks never cross a section (a heading or a PDF
 * page). Within a section, paragraphs are packed greedily up to `maxChars`; a paragraph longer
 * than that is split at sentence boundaries (`Intl.Segmenter`), and a sentence still too long
 * at the last whitespace before the limit (or at the limit, for text without spaces such as
 * Chinese). Each chunk after the first of a section starts with a small overlap: the tail of
 * the previous chunk (at most `overlapChars`), cut at a sentence boundary when there is one in
 * reach, else at a space. Chunk text is verbatim source text: paragraphs joined by a blank line,
 * the pieces of one paragraph joined exactly as in the source.
 */

import { segmenter } from "../../core/segmenter.ts";
import type { ChunkInput, ExtractedDocument, Section } from "./types.ts";

/** Options of {@link chunkDocument}. */
export interface ChunkOptions {
  /** Target upper size of a chunk, in characters (default 1200). */
  maxChars?: number;
  /** Size of the overlap with the previous chunk, in characters (default 150; 0 = none). */
  overlapChars?: number;
}

/** Defaults of {@link ChunkOptions}. */
export const DEFAULT_CHUNK_OPTIONS: Required<ChunkOptions> = { maxChars: 1200, overlapChars: 150 };

interface Piece {
  text: string;
  /** True when the piece starts a paragraph (joined with a blank line). */
  startsParagraph: boolean;
}

function hardSplit(text: string, limit: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    let cut = rest.lastIndexOf(" ", limit);
    if (cut <= limit / 2) cut = limit;
    else cut += 1;
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest) parts.push(rest);
  return parts;
}

/** Splits a paragraph into pieces of at most `limit` characters whose concatenation is the paragraph. */
export function splitParagraph(paragraph: string, limit: number): string[] {
  if (paragraph.length <= limit) return [paragraph];
  const pieces: string[] = [];
  let current = "";
  for (const { segment } of segmenter("sentence", "und").segment(paragraph)) {
    for (const part of segment.length > limit ? hardSplit(segment, limit) : [segment]) {
      if (current && current.length + part.length > limit) {
        pieces.push(current);
        current = "";
      }
      current += part;
    }
  }
  if (current) pieces.push(current);
  return pieces;
}

/** The tail of `text` used as overlap: at most `max` characters, starting at a sentence or word. */
export function overlapTail(text: string, max: number): string {
  if (max <= 0 || text.length === 0) return "";
  let from = Math.max(0, text.length - max);
  const code = text.charCodeAt(from);
  if (code >= 0xdc00 && code <= 0xdfff) from += 1;
  let offset = -1;
  for (const { index } of segmenter("sentence", "und").segment(text)) {
    if (index >= from && index < text.length) {
      offset = index;
      break;
    }
  }
  if (offset < 0) {
    const space = text.indexOf(" ", from);
    offset = from === 0 ? 0 : space >= 0 && space < text.length - 1 ? space + 1 : from;
  }
  return text.slice(offset).trimStart();
}

function chunkSection(section: Section, options: Required<ChunkOptions>): ChunkInput[] {
  const limit = Math.max(1, options.maxChars - options.overlapChars);
  const pieces: Piece[] = [];
  for (const paragraph of section.paragraphs) {
    splitParagraph(paragraph, limit).forEach((text, i) => {
      pieces.push({ text, startsParagraph: i === 0 });
    });
  }
  const chunks: ChunkInput[] = [];
  let current = "";
  const emit = () => {
    const text = current.trim();
    if (text) {
      chunks.push({
        text,
        anchor: section.anchor,
        headingPath: section.headingPath,
        ...(section.page !== undefined ? { page: section.page } : {}),
      });
    }
  };
  for (const piece of pieces) {
    const joiner = current && piece.startsParagraph ? "\n\n" : "";
    if (current && current.length + joiner.length + piece.text.length > options.maxChars) {
      emit();
      const tail = overlapTail(current.trimEnd(), options.overlapChars);
      const tailJoiner = tail && piece.startsParagraph ? "\n\n" : "";
      current = piece.startsParagraph ? tail : overlapTail(current, options.overlapChars);
      current += tailJoiner + piece.text;
      continue;
    }
    current += joiner + piece.text;
  }
  emit();
  return chunks;
}

/** Cuts a document into chunks. */
export function chunkDocument(document: ExtractedDocument, options: ChunkOptions = {}): ChunkInput[] {
  const resolved = { ...DEFAULT_CHUNK_OPTIONS, ...options };
  return document.sections.flatMap((section) => chunkSection(section, resolved));
}
