/**
 * Evidence as a writer reads it, in fewer tokens: excerpts grouped under their source (its title
 * written once, cut to a length), each excerpt trimmed to the sentences that matter for the
 * piece being written — the sentences sharing most content words with its focus (a section's
 * title and plan, a subtask's goal), kept in page order, omissions marked `…`. The stored
 * evidence is untouched: ids stay the ones to cite and the citation pass checks the full text.
 */

import type { Evidence, Source } from "../core/source.ts";
import { contentWords } from "../core/text.ts";

/** How much of each excerpt and source title a brief shows. */
export interface BriefOptions {
  /** What the writing is about (title and plan, goal); without it excerpts keep their head. */
  focus?: string;
  /** Longest excerpt shown, in characters. Default 360. */
  maxChars?: number;
  /** Longest source title shown, in characters. Default 90. */
  titleChars?: number;
}

/** Default longest excerpt a brief shows (characters). */
export const BRIEF_EXCERPT_CHARS = 360;

const SENTENCE_END = /(?<=[.!?]["'”)\]]?)\s+|(?<=[。！？])/u;

/**
 * The sentences of `text` that matter most for `focus` within `maxChars`, in their order; a gap
 * between kept sentences, and text left out at either end, is marked `…`. A text within the
 * limit is returned whole (whitespace collapsed); a single sentence longer than the limit is cut.
 */
export function focusExcerpt(text: string, focus: ReadonlySet<string>, maxChars: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= maxChars) return flat;
  const sentences = flat.split(SENTENCE_END).filter((s) => s.trim().length > 0);
  const scored = sentences.map((s, i) => {
    const words = new Set(contentWords(s));
    let hits = 0;
    for (const w of words) if (focus.has(w)) hits++;
    return { i, s: s.trim(), hits };
  });
  const order = [...scored].sort((a, b) => b.hits - a.hits || a.i - b.i);
  const kept: typeof scored = [];
  let used = 0;
  for (const c of order) {
    const cost = c.s.length + 2;
    if (kept.length > 0 && used + cost > maxChars) continue;
    kept.push(c);
    used += cost;
  }
  kept.sort((a, b) => a.i - b.i);
  const parts: string[] = [];
  kept.forEach((c, k) => {
    const s = c.s.length > maxChars ? `${c.s.slice(0, maxChars).trimEnd()}…` : c.s;
    const gap = k === 0 ? c.i > 0 : c.i > kept[k - 1]!.i + 1;
    parts.push(gap ? `… ${s}` : s);
  });
  const last = kept.at(-1)!;
  return `${parts.join(" ")}${last.i < sentences.length - 1 && !parts.at(-1)!.endsWith("…") ? " …" : ""}`;
}

/**
 * Evidence as a prompt block: one `Source: title (date)` line per source, in order of its first
 * excerpt, with its excerpts below as `[E3] text`, each trimmed to what matters for the focus.
 */
export function briefEvidence(
  evidence: readonly Evidence[],
  sourceOf: (id: string) => Source | undefined,
  options: BriefOptions = {},
): string {
  const maxChars = options.maxChars ?? BRIEF_EXCERPT_CHARS;
  const titleChars = options.titleChars ?? 90;
  const focus = new Set(contentWords(options.focus ?? ""));
  const groups = new Map<string, Evidence[]>();
  for (const e of evidence) groups.set(e.sourceId, [...(groups.get(e.sourceId) ?? []), e]);
  const lines: string[] = [];
  for (const [sourceId, items] of groups) {
    const s = sourceOf(sourceId);
    const title = (s?.title ?? "source").replace(/\s+/g, " ").trim();
    const shown = title.length > titleChars ? `${title.slice(0, titleChars - 1).trimEnd()}…` : title;
    lines.push(`Source: ${shown}${s?.publishedAt ? ` (${s.publishedAt.slice(0, 10)})` : ""}`);
    for (const e of items) lines.push(`[${e.id}] ${focusExcerpt(e.text, focus, maxChars)}`);
  }
  return lines.join("\n");
}
