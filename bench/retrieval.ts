/**
 * Retrieval benchmark on BEIR SciFact (5,183 abstracts, 300 test queries), read from
 * `../shared/benchmarks/beir_scifact` beside the repository (never copied into it; evaluation
 * use only). Indexes the corpus into a temporary corpus index (one chunk per document: title
 * and text, as `dossier eval retrieval` does), retrieves the top 100 for each test query with
 * BM25 (k1 0.9, b 0.4), and prints nDCG@10, Recall@100 and MRR@10 beside Anserini's BM25 flat
 * figures on the same data, with the index time and the query latency p50 / p95.
 *
 *   node bench/retrieval.ts [--analyzer english|standard|all] [--data <beir folder>]
 */

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadBeirQueries, loadQrels } from "../src/eval/beir.ts";
import { indexBeirCorpus } from "../src/eval/beir-index.ts";
import { evaluateRetrieval, type Judgments } from "../src/eval/retrieval-metrics.ts";
import {
  ANALYZER_NAMES,
  type AnalyzerName,
  CorpusIndex,
  isAnalyzerName,
  localSearch,
} from "../src/tools/corpus/index.ts";

/** Anserini's BM25 flat regression on BEIR v1.0.0 SciFact (k1 0.9, b 0.4). */
const ANSERINI = { ndcgAt10: 0.6789, recallAt100: 0.9253 };
const DEPTH = 100;

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

async function run(data: string, analyzer: AnalyzerName): Promise<void> {
  const queries = await loadBeirQueries(join(data, "queries.jsonl"));
  const qrels = await loadQrels(join(data, "qrels", "test.tsv"));
  const judged = new Map<string, Judgments>([...qrels].filter(([id]) => queries.has(id)));
  const dir = mkdtempSync(join(tmpdir(), "dossier-bench-retrieval-"));
  const index = CorpusIndex.open({ path: join(dir, "corpus.db") });
  try {
    index.useAnalyzer(analyzer);
    const started = performance.now();
    const documents = await indexBeirCorpus(index, join(data, "corpus.jsonl"));
    const indexSeconds = (performance.now() - started) / 1000;

    const runs = new Map<string, string[]>();
    const latencies: number[] = [];
    for (const [id] of judged) {
      const start = performance.now();
      const hits = await localSearch({ index, query: queries.get(id)!, topK: DEPTH + 1 });
      latencies.push(performance.now() - start);
      runs.set(
        id,
        hits
          .map((h) => h.path)
          .filter((doc) => doc !== id)
          .slice(0, DEPTH),
      );
    }
    latencies.sort((a, b) => a - b);
    const scores = evaluateRetrieval(runs, judged);
    const row = (label: string, ours: number, theirs?: number) =>
      `${label.padEnd(11)} ${ours.toFixed(4)}${theirs !== undefined ? `   Anserini BM25 flat ${theirs.toFixed(4)}` : ""}`;
    console.log(`\n== BEIR SciFact, BM25 k1=0.9 b=0.4, analyzer ${analyzer} ==`);
    console.log(`documents   ${documents}, ${index.stats().totalLength} terms`);
    console.log(`queries     ${scores.queries}`);
    console.log(row("nDCG@10", scores.ndcgAt10, ANSERINI.ndcgAt10));
    console.log(row("Recall@100", scores.recallAt100, ANSERINI.recallAt100));
    console.log(row("MRR@10", scores.mrrAt10));
    console.log(`index time  ${indexSeconds.toFixed(1)} s (${(documents / indexSeconds).toFixed(0)} docs/s)`);
    console.log(
      `query       p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms (top ${DEPTH + 1})`,
    );
  } finally {
    index.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const data = resolve(flag("--data") ?? join(root, "..", "shared", "benchmarks", "beir_scifact"));
const choice = flag("--analyzer") ?? "english";
if (choice !== "all" && !isAnalyzerName(choice)) {
  console.error(`unknown analyzer "${choice}" (${ANALYZER_NAMES.join(", ")} or all)`);
  process.exit(2);
}
if (!existsSync(join(data, "corpus.jsonl"))) {
  console.log(
    `skipped: no BEIR SciFact data at ${data} (expected corpus.jsonl, queries.jsonl, qrels/test.tsv)`,
  );
  process.exit(0);
}
for (const analyzer of choice === "all" ? ANALYZER_NAMES : [choice as AnalyzerName])
  await run(data, analyzer);
