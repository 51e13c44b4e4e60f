/**
 * Claims of a report: its cited sentences. Each is found in the report body with its range (so a
 * rewrite can replace or remove it), its citation markers and reference numbers, and the ordinal
 * of its last marker among all markers outside code (so the HTML report can mark it at its
 * citation). Headings, table rows and code are not claims.
 */

import { segmenter } from "../../core/segmenter.ts";

/** Citation markers of a final report (`[1]`, `[2, 5]`), not a link's text. */
export const MARKER = /\[(\d+(?:, \d+)*)\](?![(:])/g;

/** One cited sentence of a report body. */
export interface ReportClaim {
  /** 1-based, in reading order. */
  index: number;
  /** Range of the sentence in the body (citations included). */
  start: number;
  end: number;
  /** The sentence as written. */
  raw: string;
  /** The sentence without its citation markers, blanks collapsed. */
  text: string;
  /** The markers as written, in order. */
  markers: string[];
  /** Distinct reference numbers cited. */
  numbers: number[];
  /** 0-based ordinal of the claim's last marker among all markers of the body outside code. */
  lastMarker: number;
}

/** Blanks out code spans and fenced blocks (same length, so offsets hold). */
function maskCode(body: string): string {
  return body.replace(/(```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|``[^\n]*?``|`[^`\n]*`)/g, (code) =>
    code.replace(/[^\n]/g, " "),
  );
}

/** The cited sentences of a report body. */
export function extractClaims(body: string): ReportClaim[] {
  const masked = maskCode(body);
  const markerStarts = [...masked.matchAll(MARKER)].map((m) => m.index);
  const claims: ReportClaim[] = [];
  for (const block of proseBlocks(masked)) {
    const segments: Array<{ start: number; end: number }> = [];
    // Line breaks inside a paragraph are blanks to the segmenter (a break is not a sentence end).
    const text = masked.slice(block.start, block.end).replace(/\n/g, " ");
    for (const { segment, index } of segmenter("sentence").segment(text)) {
      const start = block.start + index;
      const end = start + segment.length;
      // A citation placed after the full stop ("… in 2024. [3] Next …") belongs to the sentence before it.
      const leading = /^\s*(?:\[\d+(?:, \d+)*\]\s*)+/.exec(segment)?.[0];
      if (leading && segments.length > 0) {
        segments[segments.length - 1]!.end = start + leading.trimEnd().length;
        if (segment.slice(leading.length).trim()) segments.push({ start: start + leading.length, end });
      } else segments.push({ start, end });
    }
    for (const s of segments) {
      const piece = masked.slice(s.start, s.end);
      const start = s.start + (piece.length - piece.trimStart().length);
      const end = s.end - (piece.length - piece.trimEnd().length);
      if (end <= start) continue;
      const raw = body.slice(start, end);
      if (raw.includes("\n\n")) continue;
      const markers = [...masked.slice(start, end).matchAll(MARKER)];
      if (markers.length === 0) continue;
      const lastStart = start + markers[markers.length - 1]!.index;
      const numbers = [...new Set(markers.flatMap((m) => m[1]!.split(", ").map(Number)))];
      // The markers leave the text; a `[2]` inside code stays.
      let cut = raw;
      for (const m of [...markers].reverse())
        cut = `${cut.slice(0, m.index)} ${cut.slice(m.index + m[0].length)}`;
      const text = cut
        .replace(/\s+([.,;:!?])/g, "$1")
        .replace(/\s+/g, " ")
        .trim();
      claims.push({
        index: claims.length + 1,
        start,
        end,
        raw,
        text,
        markers: markers.map((m) => m[0]),
        numbers,
        lastMarker: markerStarts.indexOf(lastStart),
      });
    }
  }
  return claims;
}

/** Paragraphs and list items (ranges, the list or quote marker left out); not headings, tables or rules. */
function proseBlocks(masked: string): Array<{ start: number; end: number }> {
  const blocks: Array<{ start: number; end: number }> = [];
  let current: { start: number; end: number } | null = null;
  let offset = 0;
  for (const line of masked.split("\n")) {
    const lineStart = offset;
    offset += line.length + 1;
    const skip = /^\s*(?:#|\||$)/.test(line) || /^\s*[-*_:| ]+$/.test(line);
    const item = /^\s*(?:>\s*)*(?:(?:[-*+]|\d+[.)])\s+)?/.exec(line)![0];
    const startsItem = /[-*+>]|\d[.)]/.test(item);
    if (skip) {
      current = null;
      continue;
    }
    if (current && !startsItem) {
      current.end = lineStart + line.length;
      continue;
    }
    current = { start: lineStart + item.length, end: lineStart + line.length };
    blocks.push(current);
  }
  return blocks;
}
