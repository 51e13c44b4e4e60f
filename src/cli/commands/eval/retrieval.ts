/**
 * `dossier eval retrieval --corpus <corpus.jsonl> --queries <queries.jsonl> --qrels <qrels.tsv>
 * [--k1 0.9] [--b 0.4] [--hybrid] [--json]`: indexes a BEIR-format corpus into a temporary
 * corpus index (one chunk per document: title and text), retrieves the top 100 for every
 * judged query, and prints nDCG@10, Recall@100 and MRR@10 (4 decimals). As in BEIR, a result
 * whose id equals the query id is ignored. Judged queries missing from the queries file are
 * reported and left out.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { DossierError } from "../../../core/errors.ts";
import { loadBeirQueries, loadQrels } from "../../../eval/beir.ts";
import { indexBeirCorpus } from "../../../eval/beir-index.ts";
import { evaluateRetrieval, type Judgments } from "../../../eval/retrieval-metrics.ts";
import {
  bm25ParamsSchema,
  CorpusIndex,
  createEmbeddingClient,
  type EmbeddingClient,
  embeddingSettings,
  embedPendingChunks,
  localSearch,
} from "../../../tools/corpus/index.ts";
import type { CliIo } from "../../io.ts";
import { type GlobalFlags, loadCliConfig } from "../../settings.ts";

/** Flags of `dossier eval retrieval`. */
export interface RetrievalEvalFlags extends GlobalFlags {
  corpus: string;
  queries: string;
  qrels: string;
  k1?: string;
  b?: string;
  hybrid?: boolean;
  json?: boolean;
}

/** Results retrieved per query (Recall@100 needs 100). */
const DEPTH = 100;
const BATCH = 1000;

function number(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) {
    throw new DossierError("INPUT_INVALID", `${flag} must be a number (got "${value}")`);
  }
  return n;
}

/** Runs `dossier eval retrieval`. */
export async function runRetrievalEval(io: CliIo, flags: RetrievalEvalFlags): Promise<void> {
  const parsed = bm25ParamsSchema.safeParse({
    ...(flags.k1 !== undefined ? { k1: number("--k1", flags.k1) } : {}),
    ...(flags.b !== undefined ? { b: number("--b", flags.b) } : {}),
  });
  if (!parsed.success) {
    throw new DossierError("INPUT_INVALID", "--k1 must be from 0 to 100 and --b from 0 to 1");
  }
  const bm25 = parsed.data;
  const loaded = loadCliConfig(io, flags);
  let embeddings: EmbeddingClient | undefined;
  if (flags.hybrid) embeddings = createEmbeddingClient(embeddingSettings(io.env, loaded.config));
  const queries = await loadBeirQueries(resolve(io.cwd, flags.queries));
  const qrels = await loadQrels(resolve(io.cwd, flags.qrels));
  const judged = new Map<string, Judgments>();
  const missing: string[] = [];
  for (const [id, judgments] of qrels) {
    if (queries.has(id)) judged.set(id, judgments);
    else missing.push(id);
  }
  const dir = mkdtempSync(join(tmpdir(), "dossier-eval-"));
  const index = CorpusIndex.open({ path: join(dir, "corpus.db") });
  try {
    const documents = await indexBeirCorpus(index, resolve(io.cwd, flags.corpus), BATCH);
    if (embeddings) await embedPendingChunks(index, embeddings);
    const runs = new Map<string, string[]>();
    for (const id of judged.keys()) {
      const hits = await localSearch({
        index,
        query: queries.get(id)!,
        topK: DEPTH + 1,
        bm25,
        ...(embeddings ? { embeddings } : {}),
      });
      runs.set(
        id,
        hits
          .map((h) => h.path)
          .filter((doc) => doc !== id)
          .slice(0, DEPTH),
      );
    }
    const scores = evaluateRetrieval(runs, judged);
    if (flags.json) {
      const { perQuery: _perQuery, ...means } = scores;
      io.out(
        `${JSON.stringify({ documents, ...means, missingQueries: missing.length, k1: bm25.k1, b: bm25.b, hybrid: Boolean(embeddings) })}\n`,
      );
      return;
    }
    if (missing.length) {
      io.err(
        `dossier: warning: ${missing.length} judged queries are not in ${flags.queries} and were left out\n`,
      );
    }
    const mode = embeddings
      ? `hybrid (BM25 k1=${bm25.k1} b=${bm25.b} + ${embeddings.model}, RRF)`
      : `BM25 k1=${bm25.k1} b=${bm25.b}`;
    io.out(
      `${[
        `retrieval  ${mode}`,
        `documents  ${documents}`,
        `queries    ${scores.queries}`,
        `nDCG@10    ${scores.ndcgAt10.toFixed(4)}`,
        `Recall@100 ${scores.recallAt100.toFixed(4)}`,
        `MRR@10     ${scores.mrrAt10.toFixed(4)}`,
      ].join("\n")}\n`,
    );
  } finally {
    index.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Registers the `retrieval` evaluation subcommand(s) under `dossier eval`. */
export function registerRetrievalEval(evalCommand: Command, io: CliIo): void {
  evalCommand
    .command("retrieval")
    .description("evaluate local retrieval on BEIR-format data: nDCG@10, Recall@100, MRR@10")
    .requiredOption("--corpus <file>", "corpus.jsonl ({_id, title, text} per line)")
    .requiredOption("--queries <file>", "queries.jsonl ({_id, text} per line)")
    .requiredOption("--qrels <file>", "qrels TSV (query-id, corpus-id, score; header line)")
    .option("--k1 <n>", "BM25 k1 (default 0.9)")
    .option("--b <n>", "BM25 b (default 0.4)")
    .option("--hybrid", "fuse BM25 with dense retrieval (DOSSIER_EMBEDDING_URL, DOSSIER_EMBEDDING_MODEL)")
    .option("--json", "print the figures as one JSON object")
    .action(async (_opts: unknown, cmd: Command) => {
      await runRetrievalEval(io, cmd.optsWithGlobals<RetrievalEvalFlags>());
    });
}
