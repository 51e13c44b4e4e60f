/**
 * Getting a JSON value out of what a model wrote: reasoning blocks, code fences and prose
 * around the JSON are tolerated. When no valid JSON is there, {@link repairedJsonValues} reads
 * the answer leniently with `jsonrepair` (trailing commas, single quotes, Python literals, raw
 * newlines in strings, comments, an answer cut short) before the model is asked again.
 */

import { lazyModule } from "../core/lazy-module.ts";

/** jsonrepair, loaded when an answer first needs repairing. */
const repairer = lazyModule<typeof import("jsonrepair")>("jsonrepair");

/** Removes `<think>…</think>` (and `<thinking>`, `<reasoning>`) blocks, including an unclosed leading one. */
export function stripReasoning(text: string): string {
  let out = text.replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi, "");
  // A block opened but never closed swallows everything after it; a close with no open
  // (some servers drop the opening tag) means everything before it was reasoning.
  out = out.replace(/<(think|thinking|reasoning)>[\s\S]*$/i, "");
  const orphanClose = out.search(/<\/(think|thinking|reasoning)>/i);
  if (orphanClose >= 0) out = out.slice(out.indexOf(">", orphanClose) + 1);
  return out.trim();
}

/** The contents of the first fenced code block, if the text has one. */
export function fencedContent(text: string): string | undefined {
  const m = /```[ \t]*[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/.exec(text);
  return m ? m[1]!.trim() : undefined;
}

/**
 * Finds the first complete JSON object or array in `text` by bracket matching (aware of
 * strings and escapes) and returns its source, or undefined.
 */
export function firstJsonSpan(text: string): string | undefined {
  for (let start = 0; start < text.length; start++) {
    const c = text[start];
    if (c !== "{" && c !== "[") continue;
    const end = matchBracket(text, start);
    if (end < 0) continue;
    const candidate = text.slice(start, end + 1);
    try {
      JSON.parse(candidate);
      return candidate;
    } catch {
      // Not JSON (e.g. "[E3]" in prose); keep scanning.
    }
  }
  return undefined;
}

function matchBracket(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") stack.push(c === "{" ? "}" : "]");
    else if (c === "}" || c === "]") {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/**
 * Outcome of {@link extractJson}: `whole` when the value is the whole answer (or its fenced
 * block), not a fragment found inside it.
 */
export type ExtractResult = { ok: true; value: unknown; whole: boolean } | { ok: false; error: string };

/**
 * Extracts the first JSON value a model produced: strips reasoning blocks, prefers a fenced
 * block, then the whole text, then the first balanced object/array in it.
 */
export function extractJson(raw: string): ExtractResult {
  const text = stripReasoning(raw);
  if (!text) return { ok: false, error: "the answer is empty (after removing reasoning blocks)" };
  const candidates = [fencedContent(text), text].filter((x): x is string => x !== undefined);
  for (const candidate of candidates) {
    try {
      return { ok: true, value: JSON.parse(candidate), whole: true };
    } catch {
      const span = firstJsonSpan(candidate);
      if (span !== undefined) return { ok: true, value: JSON.parse(span), whole: false };
    }
  }
  return { ok: false, error: "no JSON object or array found in the answer" };
}

/** Opening brackets tried as the start of a malformed value (prose may hold a few before it). */
const MAX_STARTS = 4;

/**
 * True when a JSON-like text that starts with a bracket ends before its value does: a string or
 * a bracket left open (quotes of either kind, escapes honoured). Such an answer was cut short —
 * its end is lost, and no repair brings it back.
 */
export function isCutShort(source: string): boolean {
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth <= 0) return false;
    }
  }
  return true;
}

/**
 * The values a lenient reading of a model's answer yields, most likely first: the fenced block,
 * then from each of the first opening brackets to the end of the text and to the last closing
 * bracket (prose after it), each repaired by `jsonrepair` — a trailing comma, single quotes,
 * Python literals, a raw newline in a string, comments. Only objects and arrays are yielded
 * (prose read leniently is a string, never a value), and never from a text cut short
 * ({@link isCutShort}): what is missing would be made up. Lazy: a caller stops at the first
 * value its schema accepts.
 */
export function* repairedJsonValues(raw: string): Generator<unknown> {
  const text = stripReasoning(raw);
  const tried = new Set<string>();
  const attempt = (candidate: string | undefined): unknown => {
    const source = candidate?.trim();
    if (!source || tried.has(source) || !/^[[{]/.test(source) || isCutShort(source)) return undefined;
    tried.add(source);
    try {
      const value: unknown = JSON.parse(repairer().jsonrepair(source));
      return typeof value === "object" && value !== null ? value : undefined;
    } catch {
      return undefined;
    }
  };
  const starts: number[] = [];
  for (let i = 0; i < text.length && starts.length < MAX_STARTS; i++) {
    if (text[i] === "{" || text[i] === "[") starts.push(i);
  }
  const lastClose = Math.max(text.lastIndexOf("}"), text.lastIndexOf("]"));
  const candidates = function* () {
    yield fencedContent(text);
    for (const start of starts) {
      yield text.slice(start);
      if (lastClose > start) yield text.slice(start, lastClose + 1);
    }
  };
  for (const candidate of candidates()) {
    const value = attempt(candidate);
    if (value !== undefined) yield value;
  }
}

/** True when the answer's JSON (from its first brace, else its first bracket) was cut short. */
export function answerCutShort(raw: string): boolean {
  const text = stripReasoning(raw);
  const brace = text.indexOf("{");
  const start = brace >= 0 ? brace : text.indexOf("[");
  return start >= 0 && isCutShort(text.slice(start));
}
