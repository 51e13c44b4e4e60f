/**
 * Extracting (statement, citation number, URL) triples from a Markdown report. In-text
 * citations are numbered markers — `[1]`, `[1, 2]`, `[1][2]`, `[1-3]`, `[^1]`, `[1†L10]` —
 * resolved through the report's reference list (see references.ts), and inline links
 * `[text](https://…)`, which count as citation 0 as in the benchmark. The statement of a
 * citation is the sentence that carries it (markers right after a sentence's end belong to
 * that sentence), with markers and Markdown decoration removed.
 *
 * The benchmark extracts the triples with a model; this extraction is rule-based, so the same
 * report always yields the same triples and no call is spent on it.
 */

import { headingLines, readMarkdown } from "../../core/markdown.ts";
import { segmenter } from "../../core/segmenter.ts";
import { type SplitReport, splitReferences, trimUrl } from "./references.ts";

/** One extracted citation: the benchmark's `{fact, ref_idx, url}`. */
export type CitationTriple = {
  fact: string;
  ref_idx: number;
  url: string;
};

/** What extraction found in a report. */
export interface Extraction {
  triples: CitationTriple[];
  /** Citation numbers used in the text that resolve to no URL (missing or non-web entry). */
  unresolved: number[];
  /** Reference entries found. */
  references: number;
}

const MARKER_SOURCE = String.raw`\[\^?(\d+(?:\s*[-–,，、;]\s*\d+)*)(?:†[^\]\n]*)?\](?![(:])`;
const MARKER = new RegExp(MARKER_SOURCE, "g");
const INLINE_LINK = /(!?)\[([^\]\n]*)\]\((https?:\/\/[^)\s]+)(?:\s+"[^"]*")?\)/g;
const MAX_RANGE = 50;

/** The citation numbers of one marker's inside (`1, 2`, `3-5`). */
export function markerNumbers(inside: string): number[] {
  const out: number[] = [];
  for (const part of inside.split(/\s*[,，、;]\s*/)) {
    const range = /^(\d+)\s*[-–]\s*(\d+)$/.exec(part);
    if (range) {
      const [a, b] = [Number(range[1]), Number(range[2])];
      if (b >= a && b - a < MAX_RANGE) for (let n = a; n <= b; n++) out.push(n);
      else out.push(a, b);
    } else if (/^\d+$/.test(part)) out.push(Number(part));
  }
  return out;
}

/** A sentence or table row (markers removed) and the citation numbers it carries. */
interface Piece {
  text: string;
  numbers: number[];
}

/** Groups body lines into blocks: paragraphs, list items, headings, table rows; code is skipped. */
function blocks(body: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length) out.push(current.join(" "));
    current = [];
  };
  const doc = readMarkdown(body);
  const headings = new Map(doc.headings.map((h) => [h.line, h]));
  const inHeading = new Set(doc.headings.flatMap(headingLines));
  for (const { text: line, line: number, inCode } of doc.lines) {
    const heading = headings.get(number);
    if (heading) {
      flush();
      current.push(heading.title);
      flush();
      continue;
    }
    if (inCode || line.trim() === "" || inHeading.has(number)) {
      flush();
      continue;
    }
    if (/^\s*([-*+]\s|\d+[.)]\s|\||>)/.test(line)) flush();
    if (/^\s*\|?[\s:|-]+\|[\s:|-]*$/.test(line)) continue;
    current.push(line.trim());
    if (/^\s*\|/.test(line)) flush();
  }
  flush();
  return out;
}

/**
 * Splits a block into sentences. Markers are taken out first (the segmenter would split
 * inside `[2][3]`) and each goes to the sentence of the character before it, so markers
 * right after a sentence's end belong to that sentence.
 */
function sentences(block: string): Piece[] {
  const markers: Array<{ at: number; numbers: number[] }> = [];
  let text = "";
  let last = 0;
  for (const m of block.matchAll(MARKER)) {
    text += block.slice(last, m.index);
    markers.push({ at: text.length, numbers: markerNumbers(m[1]!) });
    last = m.index + m[0].length;
  }
  text += block.slice(last);
  const pieces = [...segmenter("sentence").segment(text)].map((s) => ({
    start: s.index,
    text: s.segment,
    numbers: [] as number[],
  }));
  for (const marker of markers) {
    const owner = pieces.findLast((p) => p.start < marker.at) ?? pieces[0];
    owner?.numbers.push(...marker.numbers);
  }
  return pieces;
}

/** The statement text of a sentence: markers, links and Markdown decoration removed. */
export function cleanStatement(text: string): string {
  return text
    .replace(MARKER, "")
    .replace(INLINE_LINK, (_m, _bang, label: string) => label)
    .replace(/^\s*(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)/, "")
    .replace(/^\s*\|\s*|\s*\|\s*$/g, "")
    .replace(/\s*\|\s*/g, " | ")
    .replace(/\*\*|__|`/g, "")
    .replace(/\s+/g, " ")
    .replace(/\s+([.,;:!?。，；：！？）)])/g, "$1")
    .trim();
}

/** Extracts the triples of a report already split into body and references. */
export function extractFromSplit(split: SplitReport): Extraction {
  const triples: CitationTriple[] = [];
  const unresolved = new Set<number>();
  for (const block of blocks(split.body)) {
    for (const piece of sentences(block)) {
      const fact = cleanStatement(piece.text);
      if (!fact) continue;
      const seen = new Set<string>();
      const push = (ref: number, url: string) => {
        const key = `${ref} ${url}`;
        if (seen.has(key)) return;
        seen.add(key);
        triples.push({ fact, ref_idx: ref, url });
      };
      for (const n of piece.numbers) {
        const url = split.references.get(n)?.url;
        if (url) push(n, url);
        else unresolved.add(n);
      }
      for (const m of piece.text.matchAll(INLINE_LINK)) {
        if (m[1] !== "!") push(0, trimUrl(m[3]!));
      }
    }
  }
  return {
    triples,
    unresolved: [...unresolved].sort((a, b) => a - b),
    references: split.references.size,
  };
}

/** Extracts the triples of a Markdown report. */
export function extractCitations(markdown: string): Extraction {
  return extractFromSplit(splitReferences(markdown));
}
