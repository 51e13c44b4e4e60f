/**
 * Corpus benchmark: generates a synthetic corpus (deterministic PRNG; Markdown files with
 * headings and plain-text files, paragraphs drawn from a Zipf-distributed vocabulary), indexes
 * it, and prints ingest throughput (files/s, MB/s), the time of an unchanged re-index, and
 * query latency p50/p95 over 200 BM25 queries, for each target chunk count. Cleans up after.
 *
 *   node bench/corpus.ts [--chunks 10000,100000]
 */

import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CorpusIndex, indexDirectory, localSearch } from "../src/tools/corpus/index.ts";

const COMMON = `the of and to in is that for it as with was on be by this are from at or an have not
which but were they all their has more one can also been would two other some into its time these
may first new only than after like most over such between system data research model document
results method study analysis information process value number result based user search local
index report evidence source question answer page section table figure language network learning
training memory energy water city history market policy health support level group design change`
  .split(/\s+/)
  .filter(Boolean);

/** mulberry32: a small deterministic PRNG returning [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A vocabulary: common words first, then pronounceable pseudo-words; sampled by Zipf's law. */
function vocabulary(random: () => number, size: number): { words: string[]; pick: () => string } {
  const syllables = [
    "ka",
    "lo",
    "mi",
    "ren",
    "tu",
    "sha",
    "vor",
    "el",
    "qui",
    "dan",
    "po",
    "ser",
    "ith",
    "nu",
    "gar",
  ];
  const words = [...COMMON];
  const seen = new Set(words);
  while (words.length < size) {
    const n = 2 + Math.floor(random() * 3);
    let word = "";
    for (let i = 0; i < n; i++) word += syllables[Math.floor(random() * syllables.length)];
    if (!seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= size; rank++) {
    total += 1 / rank;
    cumulative.push(total);
  }
  const pick = () => {
    const r = random() * total;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  };
  return { words, pick };
}

function paragraph(random: () => number, pick: () => string): string {
  const sentences: string[] = [];
  const count = 3 + Math.floor(random() * 3);
  for (let s = 0; s < count; s++) {
    const length = 8 + Math.floor(random() * 10);
    const words = Array.from({ length }, pick);
    words[0] = words[0]!.charAt(0).toUpperCase() + words[0]!.slice(1);
    sentences.push(`${words.join(" ")}.`);
  }
  return sentences.join(" ");
}

/** Writes files for about `chunks` chunks; returns the file count and bytes. */
function generate(
  dir: string,
  chunks: number,
  seed: number,
): { files: number; bytes: number; vocab: string[] } {
  const random = prng(seed);
  const { words, pick } = vocabulary(random, 20_000);
  const sectionsPerFile = 10;
  const files = Math.ceil(chunks / sectionsPerFile);
  let bytes = 0;
  for (let f = 0; f < files; f++) {
    const folder = join(dir, `part-${String(Math.floor(f / 500)).padStart(3, "0")}`);
    if (f % 500 === 0) mkdirSync(folder, { recursive: true });
    let text: string;
    let name: string;
    if (f % 10 === 9) {
      // plain text: paragraphs only, chunked by size
      text = Array.from({ length: sectionsPerFile * 2 }, () => paragraph(random, pick)).join("\n\n");
      name = `notes-${f}.txt`;
    } else {
      const parts = [`# Document ${f}: ${pick()} ${pick()}`, ""];
      for (let s = 0; s < sectionsPerFile; s++) {
        parts.push(`${s % 3 === 2 ? "###" : "##"} Section ${s} ${pick()} ${pick()}`, "");
        parts.push(paragraph(random, pick), "", paragraph(random, pick), "");
      }
      text = parts.join("\n");
      name = `doc-${f}.md`;
    }
    writeFileSync(join(folder, name), text);
    bytes += Buffer.byteLength(text);
  }
  return { files, bytes, vocab: words };
}

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

async function benchmark(target: number): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), "dossier-bench-"));
  try {
    const root = join(base, "docs");
    mkdirSync(root);
    const t0 = performance.now();
    const generated = generate(root, target, target);
    const generateS = (performance.now() - t0) / 1000;
    const dbPath = join(base, "corpus.db");
    const index = CorpusIndex.open({ path: dbPath });
    const t1 = performance.now();
    const summary = await indexDirectory({ root, index });
    const ingestS = (performance.now() - t1) / 1000;
    const t2 = performance.now();
    const again = await indexDirectory({ root, index });
    const reindexS = (performance.now() - t2) / 1000;

    const random = prng(7);
    const vocab = generated.vocab;
    const queries = Array.from({ length: 200 }, () => {
      const n = 2 + Math.floor(random() * 3);
      // mostly mid-frequency words, sometimes a very common one, as real queries have
      return Array.from({ length: n }, () =>
        random() < 0.2 ? vocab[Math.floor(random() * 50)]! : vocab[50 + Math.floor(random() * 5000)]!,
      ).join(" ");
    });
    for (const q of queries.slice(0, 10)) await localSearch({ index, query: q, topK: 10 }); // warm-up
    const latencies: number[] = [];
    let hits = 0;
    for (const query of queries) {
      const start = performance.now();
      hits += (await localSearch({ index, query, topK: 10 })).length;
      latencies.push(performance.now() - start);
    }
    latencies.sort((a, b) => a - b);
    index.close();
    const dbBytes = statSync(dbPath).size;
    const mb = generated.bytes / 1e6;
    console.log(`\n== ~${target.toLocaleString("en")} chunks ==`);
    console.log(
      `corpus       ${generated.files} files, ${mb.toFixed(1)} MB (generated in ${generateS.toFixed(1)} s)`,
    );
    console.log(
      `indexed      ${summary.indexed} files, ${summary.totalChunks} chunks, ${summary.skipped.length} skipped`,
    );
    console.log(
      `ingest       ${ingestS.toFixed(1)} s: ${(summary.indexed / ingestS).toFixed(0)} files/s, ${(mb / ingestS).toFixed(2)} MB/s, ${(summary.totalChunks / ingestS).toFixed(0)} chunks/s`,
    );
    console.log(`re-index     ${reindexS.toFixed(1)} s with nothing changed (${again.unchanged} unchanged)`);
    console.log(`index file   ${(dbBytes / 1e6).toFixed(1)} MB`);
    console.log(
      `query (BM25, top 10, ${queries.length} queries, ${(hits / queries.length).toFixed(1)} hits/query)`,
    );
    console.log(
      `             p50 ${percentile(latencies, 50).toFixed(2)} ms, p95 ${percentile(latencies, 95).toFixed(2)} ms, max ${latencies[latencies.length - 1]!.toFixed(2)} ms`,
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

function targets(argv: readonly string[]): number[] {
  const at = argv.indexOf("--chunks");
  const raw = at >= 0 ? argv[at + 1] : "10000,100000";
  const list = (raw ?? "").split(",").map((s) => Number(s.trim()));
  if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 10)) {
    throw new Error(`--chunks wants a comma list of whole numbers ≥ 10 (got "${raw}")`);
  }
  return list;
}

const started = performance.now();
console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
for (const target of targets(process.argv.slice(2))) await benchmark(target);
console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s`);
