/**
 * The mams protocol as data (seed: query-specific rubrics + MaMs, §3.4, App. B): the state
 * ⟨memory, plan, report⟩, the replies of the three agents, the fact memory that only grows or
 * is corrected in place, and the splitting of a raw observation into paragraph-bounded chunks.
 */

import { z } from "zod";
import type { ResearchToolName } from "../../kit/research-tools.ts";
import { actionSchemaFor, type SearchAction } from "../../kit/search-actions.ts";

/** Tool-calling turns at most (the seed's cap). */
export const DEFAULT_MAX_TURNS = 10;
/** Tool calls one turn runs at most. */
export const DEFAULT_MAX_CALLS_PER_TURN = 5;
/** Characters of one observation chunk (the seed's observation window). */
export const DEFAULT_CHUNK_CHARS = 24_000;
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

/** The state agent's reply: what the chunk adds to the memory and what it corrects. */
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
});
/** The state agent's reply. */
export type StateReply = z.infer<typeof stateReplySchema>;

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

/** Splits `text` into pieces of at most `max` characters, at sentence ends when it can. */
function splitLong(text: string, max: number): string[] {
  const sentences = text.split(/(?<=[.!?。！？;；])\s+/);
  const out: string[] = [];
  let current = "";
  for (const sentence of sentences) {
    for (let rest = sentence; rest.length > 0; ) {
      const room = max - (current ? current.length + 1 : 0);
      if (rest.length <= room) {
        current = current ? `${current} ${rest}` : rest;
        rest = "";
      } else if (current) {
        out.push(current);
        current = "";
      } else {
        out.push(rest.slice(0, max));
        rest = rest.slice(max);
      }
    }
  }
  if (current) out.push(current);
  return out;
}

/**
 * Splits a raw observation into chunks of at most `windowChars` characters on paragraph
 * boundaries: blocks are packed whole while they fit; a block too long for a window is cut
 * between its paragraphs (a paragraph longer than a window between sentences), and each of
 * its pieces repeats the block's header, so every chunk names the evidence it shows.
 */
export function chunkObservation(blocks: readonly ObservationBlock[], windowChars: number): string[] {
  const chunks: string[] = [];
  let current = "";
  const push = (piece: string) => {
    if (current && current.length + 2 + piece.length > windowChars) {
      chunks.push(current);
      current = "";
    }
    current = current ? `${current}\n\n${piece}` : piece;
  };
  for (const block of blocks) {
    const whole = `${block.header}\n${block.text}`;
    if (whole.length <= windowChars) {
      push(whole);
      continue;
    }
    const continued = `${block.header} (continued)`;
    const room = Math.max(200, windowChars - continued.length - 1);
    const paragraphs = block.text
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .filter(Boolean)
      .flatMap((p) => (p.length > room ? splitLong(p, room) : [p]));
    let piece = "";
    let first = true;
    const flush = () => {
      if (!piece) return;
      push(`${first ? block.header : continued}\n${piece}`);
      first = false;
      piece = "";
    };
    for (const p of paragraphs) {
      if (piece && piece.length + 2 + p.length > room) flush();
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
