/**
 * The mams protocol as data (seed: query-specific rubrics + MaMs, §3.4, App. B, Table 4): the
 * state ⟨memory, plan, report⟩, the replies of the three agents (the state agent updates the
 * memory and the plan, Eq. 4), the fact memory that grows or is corrected in place and is
 * compressed whole once it passes its budget, and the splitting of a raw observation into
 * chunks of at most the observation window on paragraph boundaries.
 */

import { z } from "zod";
import type { ResearchToolName } from "../../kit/research-tools.ts";
import { actionSchemaFor, type SearchAction } from "../../kit/search-actions.ts";

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
/** Output cap of a state update that lists what a chunk adds (a compressing one gets the full cap). */
export const STATE_UPDATE_TOKENS = 4096;
/**
 * Tokens (estimated) the memory may hold before the state agent compresses it. In the seed the
 * state agent rewrites the whole memory in one reply, so the memory can never outgrow the
 * maximum response length; here the memory grows fact by fact and is compressed at that size.
 */
export const DEFAULT_MEMORY_TOKENS = MAX_RESPONSE_TOKENS;
/** Calls a search reply may hold before it is malformed; calls past the per-turn cap are not run. */
const MAX_CALLS_ACCEPTED = 10;

/** One fact of the memory, e.g. `F3`. */
export interface MemoryFact {
  id: string;
  text: string;
}

/** The research state every prompt is rebuilt from. */
export interface MamsState {
  /** Facts in the order they were learned; corrected in place, never removed. */
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

const planField = z
  .string()
  .optional()
  .describe(
    "the plan updated from this fragment as a Markdown list: steps it completes marked [x], steps it shows are needed added as [ ]; omit it when the fragment changes nothing in the plan",
  );

/** The state agent's reply: what the chunk adds to the memory and what it corrects, and the plan. */
export const stateReplySchema = z.object({
  add: z
    .array(z.string().min(3))
    .max(40)
    .describe(
      "new facts from the fragment, one per item, each keeping its numbers, names and dates and ending with its evidence id, e.g. [E4]",
    ),
  correct: z
    .array(
      z.object({
        fact: z.string().describe("the id of the memory fact the fragment corrects, e.g. F3"),
        text: z.string().min(3).describe("the corrected fact, with its evidence id"),
      }),
    )
    .max(20)
    .describe("facts of the memory that the fragment shows to be wrong or outdated, rewritten"),
  plan: planField,
});
/** The state agent's reply. */
export type StateReply = z.infer<typeof stateReplySchema>;

/**
 * The state agent's reply once the memory is over its budget: the whole memory rewritten,
 * compressed, with the fragment merged in (Eq. 4's "compressed and merged"), and the plan.
 */
export const compressReplySchema = z.object({
  memory: z
    .array(z.string().min(3))
    .min(1)
    .max(400)
    .describe(
      "the whole memory, compressed: facts that repeat or overlap merged into one, every number, name, date and evidence id kept, the fragment's new facts merged in",
    ),
  plan: planField,
});
/** The state agent's compressing reply. */
export type CompressReply = z.infer<typeof compressReplySchema>;

/** The memory a compressing reply leaves: its facts, numbered afresh (F1, F2, …), repeats dropped. */
export function compressedMemory(reply: CompressReply): MemoryFact[] {
  const seen = new Set<string>();
  const facts: MemoryFact[] = [];
  for (const text of reply.memory) {
    const key = normal(text);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    facts.push({ id: `F${facts.length + 1}`, text: text.trim() });
  }
  return facts;
}

/** The report agent's reply: the whole report after integrating the fragment. */
export const reportReplySchema = z.object({
  report: z
    .string()
    .describe(
      "the complete updated report in Markdown, sections as ## headings, citing evidence ids like [E4]; no reference list",
    ),
});

/** A memory fact id as the model may write it (`F3`, `f3`, `[F3]`, `3`), normalised; null otherwise. */
export function factId(text: string): string | null {
  const m = /^\s*\[?\s*F?\s*(\d+)\s*\]?\s*$/i.exec(text);
  return m ? `F${Number(m[1])}` : null;
}

const normal = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

/** What merging a state reply changed. */
export interface MemoryMerge {
  memory: MemoryFact[];
  added: number;
  corrected: number;
}

/**
 * Merges a state reply into the memory: every old fact stays (a correction rewrites it in
 * place, keeping its id), new facts get the next ids, repeats of a known fact are ignored, and
 * a correction naming an unknown fact is kept as a new fact.
 */
export function mergeMemory(memory: readonly MemoryFact[], reply: StateReply): MemoryMerge {
  const next = memory.map((f) => ({ ...f }));
  const known = new Set(next.map((f) => normal(f.text)));
  let counter = next.reduce((max, f) => Math.max(max, Number(f.id.slice(1)) || 0), 0);
  let added = 0;
  let corrected = 0;
  const add = (text: string) => {
    const key = normal(text);
    if (!key || known.has(key)) return;
    known.add(key);
    next.push({ id: `F${++counter}`, text: text.trim() });
    added++;
  };
  for (const c of reply.correct) {
    const id = factId(c.fact);
    const target = id ? next.find((f) => f.id === id) : undefined;
    if (!target) {
      add(c.text);
      continue;
    }
    if (normal(target.text) === normal(c.text)) continue;
    target.text = c.text.trim();
    known.add(normal(c.text));
    corrected++;
  }
  for (const text of reply.add) add(text);
  return { memory: next, added, corrected };
}

/** The memory as the agents read it: one fact per line. */
export function renderMemory(memory: readonly MemoryFact[]): string {
  return memory.length ? memory.map((f) => `${f.id}. ${f.text}`).join("\n") : "(empty)";
}

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
