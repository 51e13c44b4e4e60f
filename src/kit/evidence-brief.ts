/**
 * Evidence as a writer reads it, in fewer tokens: excerpts grouped under their source (its title
 * written once, cut to a length), each excerpt trimmed to the sentences that matter for the
 * piece being written — the sentences sharing most content words with its focus (a section's
 * title and plan, a subtask's goal), kept in page order, omissions marked `…`. The stored
 * evidence is untouched: ids stay the ones to cite and the citation pass checks the full text.
 */

import type { Evidence, Source } from "../core/source.ts";
import { contentWords } from "../core/text.ts";
import { withoutRepeats } from "./evidence-select.ts";

/** How much of each excerpt and source title a brief shows. */
export interface BriefOptions {
  /** What the writing is about (title and plan, goal); without it excerpts keep their head. */
  focus?: string;
  /** Longest excerpt shown, in characters. Default 360. */
  maxChars?: number;
  /** Longest source title shown, in characters. Default 90. */
  titleChars?: number;
  /** Show every excerpt, also those other excerpts of the block repeat. Default false. */
  repeats?: boolean;
  /** Ids shown even when other excerpts repeat them (e.g. those the findings beside them cite). */
  keep?: ReadonlySet<string>;
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
 * The excerpts worth showing, by id: first an excerpt whose every sentence other excerpts of its
 * source show is left out (see {@link withoutRepeats}: a snippet whose sentences were read), then
 * one that a longer shown excerpt of its source contains whole (a sentence of a snippet shown).
 * An id in `keep` that is left out stays listed, its text replaced by the ids that show it.
 */
function shownOnce(excerpts: Excerpt[], keep: ReadonlySet<string>): Map<string, string> {
  const once = withoutRepeats(excerpts);
  const sameSource = (e: Excerpt, o: Excerpt) => o !== e && o.sourceId === e.sourceId;
  const shown = once.filter(
    (e) => !once.some((o) => sameSource(e, o) && o.text.length > e.text.length && o.text.includes(e.text)),
  );
  const out = new Map(shown.map((e) => [e.id, e.text]));
  for (const e of excerpts) {
    if (out.has(e.id) || !keep.has(e.id)) continue;
    const pieces = e.text.split(/(?<=[.!?])\s+/).filter((p) => p.length > 0);
    const holders = shown.filter((o) => sameSource(e, o) && pieces.some((p) => o.text.includes(p)));
    out.set(e.id, holders.length > 0 ? `(its text is in ${holders.map((o) => o.id).join(", ")})` : e.text);
  }
  return out;
}

type Excerpt = { id: string; sourceId: string; text: string };

/**
 * Evidence as a prompt block: one `Source: title (date)` line per source, in order of its first
 * excerpt, with its excerpts below as `[E3] text`, each trimmed to what matters for the focus.
 * An excerpt whose every sentence the block already shows in other excerpts of its source (a
 * search snippet of a page whose passages were read) is left out: each piece of text is sent
 * once. The ids that are shown hold the same text, so whatever cited a left-out id can cite
 * them; an id in `keep` stays listed as `[E1] (its text is in E7, E8)`, so it can still be cited.
 * The caller's list of allowed ids is unchanged.
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
  const excerpts = evidence.map((e) => ({
    id: e.id,
    sourceId: e.sourceId,
    text: focusExcerpt(e.text, focus, maxChars),
  }));
  const shown = options.repeats
    ? new Map(excerpts.map((e) => [e.id, e.text]))
    : shownOnce(excerpts, options.keep ?? new Set());
  for (const [sourceId, items] of groups) {
    const s = sourceOf(sourceId);
    const title = (s?.title ?? "source").replace(/\s+/g, " ").trim();
    const head = title.length > titleChars ? `${title.slice(0, titleChars - 1).trimEnd()}…` : title;
    lines.push(`Source: ${head}${s?.publishedAt ? ` (${s.publishedAt.slice(0, 10)})` : ""}`);
    for (const e of items) {
      const text = shown.get(e.id);
      if (text !== undefined) lines.push(`[${e.id}] ${text}`);
    }
  }
  return lines.join("\n");
}
