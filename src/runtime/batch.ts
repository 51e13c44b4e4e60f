/**
 * Batch research over a question file (seed: MaMs App. F, concurrent rollouts): every question
 * is a research run of any strategy, at most `concurrency` under way at once in a sliding
 * window; one failure never stops the others. Finished articles go to a DeepResearch Bench
 * raw-data JSONL (`{id, prompt, article}`) that `dossier eval race` and `eval fact` read, and a
 * state file beside it (`<out>.state.jsonl`, one line per settled run) records how each run
 * ended. A re-run skips the questions already finished and takes up the rest: a question whose
 * earlier run (found in the store by the batch tag it carries) was interrupted, cancelled or
 * failed is resumed from its journal — no completed step is paid for again — and the others
 * start afresh. Each run adds its own article when it completes (see batch-articles.ts), so a
 * batch's run resumed on its own (`dossier runs resume`) lands in the articles file too.
 *
 * Question files: JSONL with `prompt` (or `query`, `question`, `task`) and an optional `id`
 * and `language` — DeepResearch Bench's `query.jsonl` as it is — or CSV with a header row and
 * such a column — DeepConsult's `queries.csv` as it is. Without an id a question is numbered
 * by its position (1-based).
 */

import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, extname, resolve } from "node:path";
import { DossierError, toDossierError } from "../core/errors.ts";
import type { RunRecord, RunStatus } from "../core/run.ts";
import { parseCsv } from "../eval/deepsearch/csv.ts";
import { type ArticleLine, type BatchTag, batchTagOf, readJsonLines } from "./batch-articles.ts";
import type { ResearchHandle, ResearchOptions, ResumeOptions } from "./research-handle.ts";
import { RESUMABLE } from "./resume.ts";

/** One question of a batch. */
export interface BatchQuestion {
  id: string | number;
  prompt: string;
  /** The report language the file names (e.g. `zh`), if any. */
  language?: string;
}

/** How one question's run ended. */
export interface BatchItem {
  id: string | number;
  prompt: string;
  status: "completed" | "failed" | "skipped";
  runId?: string;
  /** True when an earlier run of the question was taken up (its journal replayed). */
  resumed?: boolean;
  stopReason?: string;
  /** Report length in characters (completed runs). */
  chars?: number;
  costUsd?: number | null;
  error?: string;
}

/** Progress after a run starts or settles. */
export interface BatchProgress {
  total: number;
  /** Finished in this invocation. */
  done: number;
  failed: number;
  running: number;
  /** Finished by an earlier invocation. */
  skipped: number;
  /** Known cost of this invocation's runs so far (USD); null when some cost is unknown. */
  costUsd: number | null;
}

/**
 * What a batch runs research with (a `Dossier` fits). Each run is tagged with its question
 * (`batch` in its options) and adds its own article to the articles file when it completes.
 */
export interface BatchResearcher {
  research(question: string, options?: ResearchOptions): ResearchHandle;
  /** Stored runs, to take up a question's earlier run; without them every question starts afresh. */
  runs?: {
    list(options?: { limit?: number; status?: RunStatus }): RunRecord[] | Promise<RunRecord[]>;
    resume(runId: string, options?: ResumeOptions): ResearchHandle;
  };
}

/** Options of {@link runBatch}. */
export interface BatchOptions {
  questions: readonly BatchQuestion[];
  /** The articles file (JSONL); its state file is `<out>.state.jsonl`. */
  out: string;
  dossier: BatchResearcher;
  /** Runs under way at once at most. Default 2. */
  concurrency?: number;
  /** Options of every run (strategy, its options, budget, sources …). */
  research?: Omit<ResearchOptions, "signal" | "onEvent" | "runId">;
  /** Stops starting runs and cancels those under way. */
  signal?: AbortSignal;
  onProgress?: (progress: BatchProgress) => void;
  /** Called when a run settles. */
  onItem?: (item: BatchItem) => void;
}

/** The outcome of a batch. */
export interface BatchResult {
  /** One item per question, in the file's order. */
  items: BatchItem[];
  progress: BatchProgress;
  out: string;
  stateFile: string;
}

const PROMPT_KEYS = ["prompt", "query", "question", "task"] as const;

function question(record: Record<string, unknown>, position: number, where: string): BatchQuestion {
  const key = PROMPT_KEYS.find((k) => typeof record[k] === "string" && (record[k] as string).trim());
  if (!key)
    throw new DossierError(
      "INPUT_INVALID",
      `${where}: no question (expected a ${PROMPT_KEYS.join(", ")} field)`,
    );
  const rawId = record.id;
  const id = typeof rawId === "number" || (typeof rawId === "string" && rawId.trim()) ? rawId : position;
  const language =
    typeof record.language === "string" && record.language.trim() ? record.language.trim() : null;
  return {
    id: typeof id === "string" ? id.trim() : id,
    prompt: (record[key] as string).trim(),
    ...(language ? { language } : {}),
  };
}

/** Parses a question file's text: JSONL, or CSV with a header row (by `format` or the content). */
export function parseQuestions(
  text: string,
  source = "questions",
  format?: "jsonl" | "csv",
): BatchQuestion[] {
  const body = text.replace(/^\ufeff/, "");
  const kind = format ?? (body.trimStart().startsWith("{") ? "jsonl" : "csv");
  const questions: BatchQuestion[] = [];
  if (kind === "jsonl") {
    body.split(/\r?\n/).forEach((line, i) => {
      if (!line.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new DossierError("INPUT_INVALID", `${source}:${i + 1}: not JSON`);
      }
      if (typeof value !== "object" || value === null || Array.isArray(value))
        throw new DossierError("INPUT_INVALID", `${source}:${i + 1}: expected a JSON object`);
      questions.push(question(value as Record<string, unknown>, questions.length + 1, `${source}:${i + 1}`));
    });
  } else {
    const [header, ...rows] = parseCsv(body);
    const names = (header ?? []).map((h) => h.trim().toLowerCase());
    rows.forEach((row, i) => {
      if (row.every((f) => !f.trim())) return;
      const record = Object.fromEntries(names.map((n, j) => [n, row[j] ?? ""]));
      if (record.id === "") delete record.id;
      questions.push(question(record, questions.length + 1, `${source}:${i + 2}`));
    });
  }
  const seen = new Set<string>();
  for (const q of questions) {
    if (seen.has(String(q.id)))
      throw new DossierError("INPUT_INVALID", `${source}: question id ${q.id} appears more than once`);
    seen.add(String(q.id));
  }
  if (questions.length === 0) throw new DossierError("INPUT_INVALID", `${source}: no questions`);
  return questions;
}

/** Reads a question file (`.jsonl`/`.json` or `.csv`; other names by their content). */
export function readQuestions(path: string): BatchQuestion[] {
  if (!existsSync(path)) throw new DossierError("INPUT_INVALID", `question file not found: ${path}`);
  const ext = extname(path).toLowerCase();
  const format = ext === ".csv" ? "csv" : ext === ".jsonl" || ext === ".json" ? "jsonl" : undefined;
  return parseQuestions(readFileSync(path, "utf8"), path, format);
}

/**
 * The latest earlier run of each question of this batch that can be taken up (interrupted,
 * cancelled or failed), by question id: tagged with the same articles file, question id and
 * question, and of the strategy asked for (when one is).
 */
async function resumableRuns(
  dossier: BatchResearcher,
  out: string,
  questions: readonly BatchQuestion[],
  strategy: string | undefined,
): Promise<Map<string, RunRecord>> {
  const found = new Map<string, RunRecord>();
  if (!dossier.runs) return found;
  const prompts = new Map(questions.map((q) => [String(q.id), q.prompt]));
  for (const status of RESUMABLE) {
    for (const run of await dossier.runs.list({ status, limit: 1_000_000 })) {
      const tag = batchTagOf(run);
      if (!tag || tag.out !== out || prompts.get(String(tag.id)) !== tag.prompt) continue;
      if (strategy && run.strategy !== strategy) continue;
      const seen = found.get(String(tag.id));
      if (!seen || run.createdAt > seen.createdAt) found.set(String(tag.id), run);
    }
  }
  return found;
}

/** Runs every question not finished before; resolves when all have settled. */
export async function runBatch(options: BatchOptions): Promise<BatchResult> {
  const { questions, out, dossier, signal } = options;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 2));
  const stateFile = `${out}.state.jsonl`;
  mkdirSync(dirname(out), { recursive: true });
  const articles = new Map<string, ArticleLine>();
  for (const a of readJsonLines<ArticleLine>(out)) articles.set(String(a.id), a);
  const earlier = new Map<string, BatchItem>();
  for (const s of readJsonLines<BatchItem>(stateFile)) earlier.set(String(s.id), s);
  const tagOut = resolve(out);

  const items: BatchItem[] = questions.map((q) => {
    const finished = articles.get(String(q.id));
    const before = earlier.get(String(q.id));
    return finished
      ? { ...(before?.status === "completed" ? before : {}), id: q.id, prompt: q.prompt, status: "skipped" }
      : { id: q.id, prompt: q.prompt, status: "failed", error: "not run" };
  });
  const pending = questions.map((q, i) => ({ q, i })).filter(({ i }) => items[i]!.status !== "skipped");
  const resumable = await resumableRuns(
    dossier,
    tagOut,
    pending.map(({ q }) => q),
    options.research?.strategy,
  );
  const progress: BatchProgress = {
    total: questions.length,
    done: 0,
    failed: 0,
    running: 0,
    skipped: questions.length - pending.length,
    costUsd: 0,
  };
  const report = () => options.onProgress?.({ ...progress });
  const addCost = (cost: number | null | undefined) => {
    if (progress.costUsd === null) return;
    progress.costUsd = cost === null || cost === undefined ? null : progress.costUsd + cost;
  };

  const runOne = async (q: BatchQuestion): Promise<BatchItem> => {
    let handle: ResearchHandle | undefined;
    const earlierRun = resumable.get(String(q.id));
    const resumed = earlierRun && dossier.runs ? { resumed: true } : {};
    try {
      const tag: BatchTag = { out: tagOut, id: q.id, prompt: q.prompt };
      handle =
        earlierRun && dossier.runs
          ? dossier.runs.resume(earlierRun.id, signal ? { signal } : {})
          : dossier.research(q.prompt, {
              ...options.research,
              ...(q.language && !options.research?.language ? { language: q.language } : {}),
              batch: tag,
              ...(signal ? { signal } : {}),
            });
      const result = await handle.done;
      const base = {
        id: q.id,
        prompt: q.prompt,
        runId: result.runId,
        ...resumed,
        stopReason: result.stopReason,
      };
      const costUsd = result.usage?.costUsd ?? null;
      if (result.status !== "completed" || !result.markdown)
        return {
          ...base,
          status: "failed",
          costUsd,
          error:
            result.error?.message ??
            (result.markdown ? `run ${result.status}` : `run ${result.status} without a report`),
        };
      // The run has added its article to `out` itself (see batch-articles.ts).
      return { ...base, status: "completed", chars: result.markdown.length, costUsd };
    } catch (error) {
      const e = toDossierError(error);
      return {
        id: q.id,
        prompt: q.prompt,
        status: "failed",
        ...(handle ? { runId: handle.runId } : {}),
        ...resumed,
        error: `${e.code}: ${e.message}`,
      };
    }
  };

  // A sliding window: `concurrency` workers each take the next question when their run settles.
  let next = 0;
  const worker = async () => {
    while (next < pending.length && !signal?.aborted) {
      const { q, i } = pending[next++]!;
      progress.running++;
      report();
      const item = await runOne(q);
      progress.running--;
      if (signal?.aborted && item.status === "failed") break;
      items[i] = item;
      if (item.status === "completed") progress.done++;
      else progress.failed++;
      addCost(item.costUsd);
      appendFileSync(stateFile, `${JSON.stringify({ ...item, at: new Date().toISOString() })}\n`);
      options.onItem?.(item);
      report();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, pending.length) }, worker));

  // The articles file in the question file's order (appends were in completion order).
  const order = new Map(questions.map((q, i) => [String(q.id), i]));
  const lines = [...new Map(readJsonLines<ArticleLine>(out).map((a) => [String(a.id), a])).values()].sort(
    (a, b) => (order.get(String(a.id)) ?? Infinity) - (order.get(String(b.id)) ?? Infinity),
  );
  if (lines.length) {
    writeFileSync(`${out}.tmp`, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    renameSync(`${out}.tmp`, out);
  }
  return { items, progress: { ...progress }, out, stateFile };
}

/** The summary table of a batch: one row per question, then the totals. */
export function formatBatchSummary(result: BatchResult): string {
  const cost = (c: number | null | undefined) => (c === null || c === undefined ? "?" : `$${c.toFixed(4)}`);
  const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  const rows = result.items.map((it) => [
    String(it.id),
    it.status,
    it.stopReason ?? "",
    it.chars === undefined ? "" : String(it.chars),
    it.status === "skipped" && it.costUsd === undefined ? "" : cost(it.costUsd),
    it.runId ?? "",
    cut(it.error ?? it.prompt.replace(/\s+/g, " "), 60),
  ]);
  const head = ["id", "status", "stop", "chars", "cost", "run", "question / error"];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join("  ")
      .trimEnd();
  const p = result.progress;
  return [
    line(head),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map(line),
    "",
    `${p.done} finished, ${p.failed} failed, ${p.skipped} skipped (finished before) of ${p.total}; cost ${cost(p.costUsd)}`,
    `articles: ${result.out}`,
  ].join("\n");
}
