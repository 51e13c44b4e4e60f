/**
 * The mams protocol as data (seed: query-specific rubrics + MaMs, §3.4, App. B, Table 4): the
 * state ⟨memory, plan, report⟩, the search and report agents' replies (the state agent's, which
 * rewrites the memory and the plan at every chunk, Eq. 4, is memory.ts), and the splitting of a
 * raw observation into chunks of at most the observation window on paragraph boundaries.
 */

import { z } from "zod";
import type { ResearchToolName } from "../../kit/research-tools.ts";
import { actionSchemaFor, type SearchAction } from "../../kit/search-actions.ts";
import type { MemoryFact } from "./memory.ts";

/** Tool-calling turns at most (the seed's cap). */
export const DEFAULT_MAX_TURNS = 10;
/** Tool calls one turn runs at most. */
export const DEFAULT_MAX_CALLS_PER_TURN = 5;
/** Tokens (estimated) of one observation chunk: the seed's observation window (Table 4). */
export const DEFAULT_CHUNK_TOKENS = 24_000;
/**
 * Output cap of every agent call that rewrites state (the seed's maximum response length,
 * Table 4): the report agent's whole report, the state agent's reply.
 */
export const MAX_RESPONSE_TOKENS = 16_384;
/**
 * Tokens (estimated) the memory may hold. The state agent rewrites the whole memory in one reply
 * (Eq. 4), so the memory can never outgrow the maximum response length; a rewrite over the
 * budget is a format error (memory.ts).
 */
export const DEFAULT_MEMORY_TOKENS = MAX_RESPONSE_TOKENS;
/** Calls a search reply may hold before it is malformed; calls past the per-turn cap are not run. */
const MAX_CALLS_ACCEPTED = 10;

/** The research state every prompt is rebuilt from. */
export interface MamsState {
  /** The facts, as the state agent's last rewrite left them (memory.ts). */
  memory: MemoryFact[];
  /** The plan: a Markdown list of done and open steps. */
  plan: string;
  /** The report so far: Markdown citing evidence ids. */
  report: string;
}

/** The search agent's reply: the updated plan, then tool calls, or none to finish. */
export function searchReplySchema(tools: readonly ResearchToolName[]) {
  return z.object({
    plan: z
      .string()
      .min(1)
      .describe("the updated plan as a Markdown list: finished steps marked [x], open ones [ ]"),
    calls: z
      .array(actionSchemaFor(tools))
      .max(MAX_CALLS_ACCEPTED)
      .default([])
      .describe("1-5 tool calls to run now, all at once; an empty list when the report is complete"),
  });
}
/** The search agent's reply. */
export interface SearchReply {
  plan: string;
  calls: SearchAction[];
}

/** The report agent's reply: the whole report after integrating the fragment. */
export const reportReplySchema = z.object({
  report: z
    .string()
    .describe(
      "the complete updated report in Markdown, sections as ## headings, citing a listed source as <sup>[n]</sup> right after the cited term (or by evidence id, [E4]); no reference list",
    ),
});

/** One piece of a raw observation: a header naming its evidence id and source, and its text. */
export interface ObservationBlock {
  header: string;
  text: string;
}

/** How big a text is: characters, or estimated tokens. */
export type TextSize = (text: string) => number;

const chars: TextSize = (text) => text.length;

/** The longest prefix of `text` of at most `max` by `size` (at least one character). */
function prefixWithin(text: string, max: number, size: TextSize): string {
  let end = Math.max(1, Math.min(text.length, Math.floor((text.length * max) / Math.max(1, size(text)))));
  while (end > 1 && size(text.slice(0, end)) > max) end = Math.max(1, Math.floor(end * 0.95));
  return text.slice(0, end);
}

/** Splits `text` into pieces of at most `max` by `size`, at sentence ends when it can. */
export function splitLong(text: string, max: number, size: TextSize = chars): string[] {
  const sentences = text.split(/(?<=[.!?。！？;；])\s+/);
  const out: string[] = [];
  let current = "";
  for (const sentence of sentences) {
    for (let rest = sentence; rest.length > 0; ) {
      const joined = current ? `${current} ${rest}` : rest;
      if (size(joined) <= max) {
        current = joined;
        rest = "";
      } else if (current) {
        out.push(current);
        current = "";
      } else {
        const piece = prefixWithin(rest, max, size);
        out.push(piece);
        rest = rest.slice(piece.length);
      }
    }
  }
  if (current) out.push(current);
  return out;
}

/**
 * Splits a raw observation into chunks of at most `window` (measured by `size`: characters by
 * default, or estimated tokens) on paragraph boundaries: blocks are packed whole while they
 * fit; a block too long for a window is cut between its paragraphs (a paragraph longer than a
 * window between sentences), and each of its pieces repeats the block's header, so every chunk
 * names the evidence it shows.
 */
export function chunkObservation(
  blocks: readonly ObservationBlock[],
  window: number,
  size: TextSize = chars,
): string[] {
  const chunks: string[] = [];
  let current = "";
  const push = (piece: string) => {
    if (current && size(`${current}\n\n${piece}`) > window) {
      chunks.push(current);
      current = "";
    }
    current = current ? `${current}\n\n${piece}` : piece;
  };
  for (const block of blocks) {
    const whole = `${block.header}\n${block.text}`;
    if (size(whole) <= window) {
      push(whole);
      continue;
    }
    const continued = `${block.header} (continued)`;
    const room = Math.max(Math.ceil(window / 10), window - size(`${continued}\n`));
    const paragraphs = block.text
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .filter(Boolean)
      .flatMap((p) => (size(p) > room ? splitLong(p, room, size) : [p]));
    let piece = "";
    let first = true;
    const flush = () => {
      if (!piece) return;
      push(`${first ? block.header : continued}\n${piece}`);
      first = false;
      piece = "";
    };
    for (const p of paragraphs) {
      if (piece && size(`${piece}\n\n${p}`) > room) flush();
      piece = piece ? `${piece}\n\n${p}` : p;
    }
    flush();
  }
  if (current) chunks.push(current);
  return chunks;
}

/** Evidence ids named in a text (`[E4]`, `[E4, E7]`), in order of first appearance. */
export function evidenceIdsIn(text: string): string[] {
  const ids = new Set<string>();
  for (const group of text.matchAll(/\[([^\]]*\bE\d+[^\]]*)\]/g))
    for (const m of group[1]!.matchAll(/\bE(\d+)\b/g)) ids.add(`E${m[1]}`);
  return [...ids];
}

/** True when `next` is `previous` with text added at its end and nothing else changed. */
export function onlyAppended(previous: string, next: string): boolean {
  const before = previous.trim();
  const after = next.trim();
  return before.length > 0 && after.length > before.length && after.startsWith(before);
}

const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s/;

/** The plan as a Markdown list: lines that are not list items (or their indented continuations) become items. */
export function planAsList(plan: string): string {
  const lines = plan
    .replace(/\r\n/g, "\n")
    .split("\n")
    .filter((l) => l.trim());
  return lines
    .map((l) => (LIST_ITEM.test(l) || /^\s{2,}\S/.test(l) ? l.trimEnd() : `- ${l.trim()}`))
    .join("\n");
}
