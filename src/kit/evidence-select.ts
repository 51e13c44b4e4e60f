/**
 * Choosing the evidence relevant to a piece of writing: a lexical relevance score (BM25 over
 * content words) between a section's title and plan and each evidence excerpt, so each writer
 * call sees only what its section needs.
 */

import type { Evidence, Source } from "../core/source.ts";
import { contentWords } from "../core/text.ts";

/** Ranks `evidence` (or any items with a text) by relevance to `text`; ties keep the given order. */
export function rankEvidence<T extends { text: string }>(
  text: string,
  evidence: readonly T[],
  k1 = 1.2,
  b = 0.75,
): T[] {
  const query = [...new Set(contentWords(text))];
  if (query.length === 0 || evidence.length === 0) return [...evidence];
  const docs = evidence.map((e) => contentWords(e.text));
  const avg = docs.reduce((s, d) => s + d.length, 0) / docs.length || 1;
  const df = new Map<string, number>();
  for (const d of docs) for (const w of new Set(d)) df.set(w, (df.get(w) ?? 0) + 1);
  const n = docs.length;
  const scores = docs.map((d) => {
    const tf = new Map<string, number>();
    for (const w of d) tf.set(w, (tf.get(w) ?? 0) + 1);
    let score = 0;
    for (const q of query) {
      const f = tf.get(q);
      if (!f) continue;
      const idf = Math.log(1 + (n - (df.get(q) ?? 0) + 0.5) / ((df.get(q) ?? 0) + 0.5));
      score += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * d.length) / avg));
    }
    return score;
  });
  return evidence
    .map((e, i) => ({ e, i, s: scores[i]! }))
    .sort((a, b2) => b2.s - a.s || a.i - b2.i)
    .map((x) => x.e);
}

const clean = (t: string) => t.replace(/\s+/g, " ").replace(/…$/, "").trim();
/** An excerpt that ends a sentence (a read passage), not one cut off (a search snippet). */
const whole = (t: string) => /[.!?]["'”)\]]?$/.test(t.trim());

/**
 * The pool without excerpts that say nothing new: an excerpt whose every sentence (a cut-off
 * last one as a fragment) already appears in longer excerpts of the same source — a search
 * snippet of a page whose passages were read, a passage recorded twice — is dropped, so each
 * piece of text is sent once per call. Ids in `keep` (cited by findings or assigned by the
 * outline) always stay; then whole sentences before cut-off snippets, longer before shorter;
 * the pool's order is kept.
 */
export function withoutRepeats<T extends { id: string; sourceId: string; text: string }>(
  pool: readonly T[],
  keep: ReadonlySet<string> = new Set(),
): T[] {
  const kept = new Map<string, string[]>();
  const dropped = new Set<T>();
  const order = [...pool].sort(
    (a, b) =>
      Number(keep.has(b.id)) - Number(keep.has(a.id)) ||
      Number(whole(b.text)) - Number(whole(a.text)) ||
      clean(b.text).length - clean(a.text).length,
  );
  for (const e of order) {
    const text = clean(e.text);
    const others = kept.get(e.sourceId) ?? [];
    const pieces = text.split(/(?<=[.!?])\s+/).filter((p) => p.length > 0);
    const repeated = pieces.length > 0 && pieces.every((p) => others.some((o) => o.includes(p)));
    if (repeated && !keep.has(e.id)) dropped.add(e);
    else kept.set(e.sourceId, [...others, text]);
  }
  return pool.filter((e) => !dropped.has(e));
}

/**
 * The evidence for one section: the ids the outline assigned first, then the most relevant
 * others, up to `limit`, with at most `perSource` items of one source; an excerpt repeated
 * by longer ones of its source is left out (see {@link withoutRepeats}). With `relevantOnly`,
 * the others must share a content word with `text` (an excerpt about nothing the section
 * names is not sent to fill the list).
 */
export function selectEvidence(options: {
  text: string;
  pool: readonly Evidence[];
  preferred?: readonly string[];
  limit?: number;
  perSource?: number;
  relevantOnly?: boolean;
}): Evidence[] {
  const limit = options.limit ?? 16;
  const perSource = options.perSource ?? 4;
  const pool = withoutRepeats(options.pool, new Set(options.preferred ?? []));
  const words = new Set(contentWords(options.text));
  const relevant = (e: Evidence) => !options.relevantOnly || contentWords(e.text).some((w) => words.has(w));
  const byId = new Map(pool.map((e) => [e.id, e]));
  const chosen: Evidence[] = [];
  const count = new Map<string, number>();
  const take = (e: Evidence | undefined) => {
    if (!e || chosen.includes(e) || chosen.length >= limit) return;
    const c = count.get(e.sourceId) ?? 0;
    if (c >= perSource) return;
    count.set(e.sourceId, c + 1);
    chosen.push(e);
  };
  for (const id of options.preferred ?? []) take(byId.get(id));
  for (const e of rankEvidence(options.text, pool)) if (relevant(e)) take(e);
  return chosen;
}

/** Evidence as a prompt block: `[E3] (Source title) excerpt`, each excerpt cut to `maxChars`. */
export function formatEvidence(
  evidence: readonly Evidence[],
  sourceOf: (id: string) => Source | undefined,
  maxChars = 600,
): string {
  return evidence
    .map((e) => {
      const s = sourceOf(e.sourceId);
      const text = e.text.replace(/\s+/g, " ").trim();
      const cut = text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
      return `[${e.id}] (${s?.title ?? "source"}${s?.publishedAt ? `, ${s.publishedAt.slice(0, 10)}` : ""}) ${cut}`;
    })
    .join("\n");
}
