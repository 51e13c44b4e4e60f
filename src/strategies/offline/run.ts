/**
 * The offline strategy: research over the local corpus without any language model — classical
 * query-focused extractive summarisation. Facets of the question are found by pseudo-relevance
 * feedback (distinctive terms of the best-matching passages), each facet is searched with BM25,
 * and sentences are chosen by maximal marginal relevance (relevant to the facet, not redundant
 * with what is already chosen). One section per facet; every sentence is quoted verbatim and
 * cited to its document and page or heading.
 */

import { createOutline } from "../../core/outline.ts";
import { segmenter } from "../../core/segmenter.ts";
import { contentWords } from "../../core/text.ts";
import { recordLocalPassage } from "../../kit/evidence-recorder.ts";
import { reportLabel } from "../../kit/language.ts";
import { assembleReport, type ReportPart } from "../../kit/report-assembly.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { LocalSearchResult } from "../../tools/types.ts";
import type { ResearchOutcome } from "../types.ts";
import { reviewFacets } from "./review.ts";
import { facetTitle, uniqueTitle } from "./section-titles.ts";

/** Options of the offline strategy. */
export interface OfflineOptions {
  tools: ResearchTools;
  language: string;
  notice: string;
  /** Facets (sections) at most. Default 5. */
  maxFacets?: number;
  /** Sentences per section. Default 4. */
  sentencesPerFacet?: number;
  /** MMR trade-off between relevance and novelty. Default 0.7. */
  lambda?: number;
}

interface Candidate {
  text: string;
  words: Set<string>;
  hit: LocalSearchResult;
  callId: string;
  query: string;
  /** A list item of the document (kept as a list item in the report). */
  listItem: boolean;
}

/** Runs the offline strategy. */
export async function runOffline(ctx: RunContext, options: OfflineOptions): Promise<ResearchOutcome> {
  const lambda = options.lambda ?? 0.7;
  const perFacet = options.sentencesPerFacet ?? 4;
  ctx.emit({ type: "phase", phase: "searching", detail: "offline" });
  const base = await options.tools.localSearch(ctx.query, { topK: 30 });
  const baseHits = base.ok ? base.value : [];
  if (baseHits.length === 0) {
    const text = reportLabel("noMatches", options.language);
    const outline = createOutline([
      { title: reportLabel("overview", options.language), plan: "no matching passages" },
    ]);
    const report = assembleReport(ctx, {
      title: ctx.query,
      outline,
      parts: [{ text, allowed: new Set() }],
      language: options.language,
      stopReason: "no-matches",
      notice: options.notice,
    });
    return { stopReason: "no-matches", report };
  }

  const queryWords = new Set(contentWords(ctx.query));
  // The facets are the plan: with `reviewPlan` the run stops here until they are reviewed.
  const facets = reviewFacets(ctx, findFacets(baseHits, queryWords, options.maxFacets ?? 5));
  ctx.emit({
    type: "task-framed",
    spec: { mode: "offline", facets },
    assumptions: ["no language model: extractive summary"],
  });

  const chosen: Candidate[] = [];
  const pick = (pool: Candidate[], focus: Set<string>, k: number): Candidate[] => {
    const picked: Candidate[] = [];
    const rest = pool.filter((c) => !chosen.some((x) => x.text === c.text));
    while (picked.length < k && rest.length > 0) {
      let best = -1;
      let bestScore = Number.NEGATIVE_INFINITY;
      rest.forEach((c, i) => {
        const rel = relevance(c.words, focus);
        if (rel <= 0) return;
        const redundancy = Math.max(0, ...[...chosen, ...picked].map((s) => jaccard(s.words, c.words)));
        const score = lambda * rel - (1 - lambda) * redundancy;
        if (score > bestScore) {
          bestScore = score;
          best = i;
        }
      });
      if (best < 0) break;
      picked.push(rest.splice(best, 1)[0]!);
    }
    chosen.push(...picked);
    // The most relevant passage first.
    return picked.sort((a, b) => relevance(b.words, focus) - relevance(a.words, focus));
  };

  const sections: { title: string; picked: Candidate[] }[] = [];
  sections.push({
    title: reportLabel("overview", options.language),
    picked: pick(candidates(baseHits, base.ok ? base.callId : "", ctx.query), queryWords, 3),
  });
  for (const facet of facets) {
    const q = `${ctx.query} ${facet}`;
    const r = await options.tools.localSearch(q, { topK: 12 });
    if (!r.ok || r.value.length === 0) continue;
    const focus = new Set([...queryWords, ...contentWords(facet)]);
    const picked = pick(candidates(r.value, r.callId, q), focus, perFacet);
    if (!picked.length) continue;
    // Each heading once: a title the report has already falls back to the facet's name, or the
    // passages join the section that has it.
    const wanted = facetTitle(
      facet,
      picked.map((c) => c.hit.headingPath),
    );
    const title = uniqueTitle(wanted, facet, new Set(sections.map((x) => x.title.toLowerCase())));
    if (title === null)
      sections.find((x) => x.title.toLowerCase() === wanted.toLowerCase())!.picked.push(...picked);
    else sections.push({ title, picked });
  }

  ctx.emit({ type: "phase", phase: "writing", detail: `${sections.length} sections` });
  const parts: ReportPart[] = [];
  for (const s of sections) {
    const cited = (c: Candidate) => {
      const e = recordLocalPassage(ctx, c.hit, c.text, c.query, c.callId);
      if (!e) return c.text;
      const end = /[.!?。！？]$/.exec(c.text)?.[0];
      return end ? `${c.text.slice(0, -1)} [${e.id}]${end}` : `${c.text} [${e.id}]`;
    };
    // Prose first, as one paragraph; the documents' list items stay a list.
    const prose = s.picked.filter((c) => !c.listItem).map(cited);
    const items = s.picked.filter((c) => c.listItem).map((c) => `- ${cited(c)}`);
    const lines = [...prose, ...items];
    const body = [prose.join(" "), items.join("\n")].filter(Boolean).join("\n\n");
    parts.push({ text: `## ${s.title}\n\n${body}`, allowed: "all" });
    ctx.emit({
      type: "section-written",
      sectionId: String(parts.length),
      title: s.title,
      chars: lines.join(" ").length,
      citations: lines.length,
    });
  }
  const outline = createOutline(
    sections.map((s) => ({ title: s.title, plan: "extracted passages" })),
    { maxSections: 100 },
  );
  const report = assembleReport(ctx, {
    title: ctx.query,
    outline,
    parts,
    language: options.language,
    stopReason: "completed",
    notice: options.notice,
  });
  return { stopReason: "completed", report };
}

/** Distinctive terms of the best passages (pseudo-relevance feedback), diverse in the passages they cover. */
export function findFacets(
  hits: readonly LocalSearchResult[],
  queryWords: ReadonlySet<string>,
  max: number,
): string[] {
  const score = new Map<string, number>();
  const docs = new Map<string, Set<number>>();
  hits.forEach((hit, rank) => {
    const words = contentWords(hit.text).filter((w) => !queryWords.has(w) && isFacetWord(w));
    const tf = new Map<string, number>();
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    for (const [w, f] of tf) {
      score.set(w, (score.get(w) ?? 0) + f / Math.max(1, words.length) / (1 + 0.2 * rank));
      if (!docs.has(w)) docs.set(w, new Set());
      docs.get(w)!.add(rank);
    }
  });
  const ranked = [...score.entries()]
    .filter(([w]) => (docs.get(w)?.size ?? 0) >= Math.min(2, hits.length))
    .map(([w, s]) => [w, s * Math.log(1 + (docs.get(w)?.size ?? 0))] as const)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const picked: string[] = [];
  for (const [w] of ranked) {
    if (picked.length >= max) break;
    const cover = docs.get(w)!;
    const overlaps = picked.some((p) => jaccard(docs.get(p)!, cover) >= 0.6);
    if (!overlaps) picked.push(w);
  }
  return picked;
}

function isFacetWord(w: string): boolean {
  if (/^\d+([.,]\d+)?%?$/.test(w)) return false;
  return /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/.test(w) ? w.length >= 2 : w.length >= 4;
}

function candidates(hits: readonly LocalSearchResult[], callId: string, query: string): Candidate[] {
  const out: Candidate[] = [];
  const add = (raw: string, hit: LocalSearchResult, listItem: boolean) => {
    const text = balanceEmphasis(raw.replace(/\s+/g, " ").trim());
    if (text.length < 30 || text.length > 500) return;
    out.push({ text, words: new Set(contentWords(text)), hit, callId, query, listItem });
  };
  for (const hit of hits) {
    const prose: string[] = [];
    for (const line of hit.text.split("\n")) {
      const item = /^\s*(?:[-*+]|\d+[.)])\s+(.+)$/.exec(line);
      if (item) {
        // A list item is kept whole when it reads as a complete statement.
        if (/^[A-Z0-9"“(]/.test(item[1]!.trim()) || /[\u3040-\u30ff\u3400-\u9fff]/.test(item[1]!))
          add(item[1]!, hit, true);
        prose.push("");
      } else prose.push(line);
    }
    // Lines wrapped inside a paragraph are one sentence stream; paragraph breaks stay breaks.
    const flowing = prose.join("\n").replace(/([^\n])\n(?!\n)/g, "$1 ");
    for (const { segment } of segmenter("sentence").segment(flowing)) {
      const text = segment.replace(/\s+/g, " ").trim();
      if (/^#/.test(text) || /^[|>]/.test(text)) continue;
      // Chunk edges cut sentences: only whole sentences, from a capital (or a CJK character) to a full stop.
      if (!/^[A-Z0-9"“(\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/.test(text)) continue;
      if (!/[.!?。！？…"'”’)\]]$/.test(text)) continue;
      add(text, hit, false);
    }
  }
  return out;
}

/** Emphasis markers cut by a sentence boundary would run into the next text: drop unpaired ones. */
function balanceEmphasis(text: string): string {
  let out = text;
  for (const marker of ["**", "__"]) {
    if (out.split(marker).length % 2 === 0) out = out.split(marker).join("");
  }
  return out;
}

function relevance(words: ReadonlySet<string>, focus: ReadonlySet<string>): number {
  if (words.size === 0) return 0;
  let hits = 0;
  for (const w of focus) if (words.has(w)) hits++;
  return hits / Math.sqrt(words.size);
}

function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}
