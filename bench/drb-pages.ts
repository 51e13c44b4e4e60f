/**
 * Real pages for the orchestration benchmark: the English reports of DeepResearch Bench's
 * published test data (`../shared/benchmarks/deepresearch_bench/data/test_data/cleaned_data`),
 * read at run time, each `##` section of a report one page (titled with the report's title and
 * the section heading), and a lexical ranking (BM25) of the pages for a search query. The
 * question of seed `n` is the prompt of the n-th English task of the file.
 */

import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { WorldPages } from "../test/research/world.ts";

/** The DeepResearch Bench reports the pages are cut from. */
export const DRB_REPORTS = fileURLToPath(
  new URL(
    "../../shared/benchmarks/deepresearch_bench/data/test_data/cleaned_data/claude-3-7-sonnet-latest.jsonl",
    import.meta.url,
  ),
);

/** A world of real pages and the questions to ask of it. */
export interface RealPages extends WorldPages {
  /** English task prompts, in file order. */
  questions: string[];
}

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]/;
const STOP = new Set(
  "a an and are as at be by for from has have how in is it its of on or that the their this to was what which who why will with does did do can".split(
    " ",
  ),
);

/** Lower-case word tokens without stop words. */
export function terms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((t) => !STOP.has(t));
}

/** The pages of one report: its `##` sections (text before the first one is a page too when long). */
export function reportPages(article: string): { title: string; text: string }[] {
  const lines = article.split("\n");
  const title = (lines.find((l) => /^# /.test(l)) ?? "# Report").slice(2).trim();
  const pages: { title: string; text: string }[] = [];
  let heading = "";
  let body: string[] = [];
  const flush = () => {
    const text = body.join("\n").trim();
    if (text.length >= (heading ? 80 : 200))
      pages.push({ title: heading ? `${title} — ${heading}` : title, text });
  };
  for (const line of lines) {
    if (/^# /.test(line)) continue;
    const h2 = /^## (.+)/.exec(line);
    if (h2) {
      flush();
      heading = h2[1]!.trim();
      body = [];
    } else body.push(line);
  }
  flush();
  return pages;
}

/** Loads the pages and questions; throws a clear error when the benchmark file is absent. */
export function loadRealPages(path = DRB_REPORTS): RealPages {
  if (!existsSync(path))
    throw new Error(`the real-page world needs ${path} (../shared/benchmarks); use --world short without it`);
  const rows = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { id: number; prompt: string; article: string })
    .filter((r) => !CJK.test(r.prompt));
  const pages = rows.flatMap((r) => reportPages(r.article));
  const docs = pages.map((p) => terms(`${p.title} ${p.text}`));
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const avg = docs.reduce((n, d) => n + d.length, 0) / docs.length;
  const tf = docs.map((d) => {
    const m = new Map<string, number>();
    for (const t of d) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  });
  const rank = (query: string): number[] => {
    const q = [...new Set(terms(query))];
    const scored = tf.map((m, i) => {
      let score = 0;
      for (const t of q) {
        const f = m.get(t);
        if (!f) continue;
        const idf = Math.log(1 + (docs.length - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
        score += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * docs[i]!.length) / avg));
      }
      return { n: i + 1, score };
    });
    return scored
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || a.n - b.n)
      .map((s) => s.n);
  };
  return { pages, rank, questions: rows.map((r) => r.prompt.trim()) };
}
