/**
 * Group rollouts (`dossier train rollouts`): G independent rollouts of every question row, each
 * a normal research run that records its model calls, carries its own sampling seed and is
 * tagged with its question and group index (`rollout` in its options). They run through the
 * batch runner (runtime/batch.ts) — a sliding window of `concurrency` runs, one failure never
 * stopping the others, and resumable: run again, the finished rollouts are skipped and an
 * interrupted, cancelled or failed one is taken up from its journal.
 *
 * Each rollout that reached an end of the agent's making is written to the folder's `runs.jsonl`
 * as a recorded run (recorded-run.ts) built from its event log: a completed one, and one that
 * failed by the agent's behaviour ({@link AGENT_FAILURES}: no research, no evidence, malformed
 * output to the end, a budget spent) — in RL that trajectory is a sample with its reward
 * (usually 0), and leaving it out would shrink its group and bias the advantages. A run that
 * failed for a reason outside the agent (the model endpoint unreachable, a timeout, the store)
 * is not a sample: it is reported, and taken up from its journal by the next invocation. See
 * rollout-dir.ts for the folder's files.
 */

import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { DossierError } from "../../core/errors.ts";
import type { DossierEvent } from "../../core/events.ts";
import type { RunRecord, RunStatus } from "../../core/run.ts";
import type { BatchItem, BatchProgress, BatchResearcher } from "../../runtime/batch.ts";
import type {
  ResearchHandle,
  ResearchOptions,
  ResearchResult,
  ResumeOptions,
} from "../../runtime/research-handle.ts";
import type { QuestionRow } from "../question-row.ts";
import { recordedRunFromEvents } from "../run-from-events.ts";
import {
  appendRolloutRun,
  type RolloutManifest,
  readManifest,
  rolloutPath,
  writeRolloutSetup,
} from "./rollout-dir.ts";
import { type PlannedRollout, planRollouts, rolloutStrategyOptions } from "./rollout-plan.ts";

/**
 * Error codes of a run that failed by what the agent did: such a rollout is recorded with its
 * status and scored like any other.
 */
export const AGENT_FAILURES: ReadonlySet<string> = new Set([
  "NO_RESEARCH",
  "NO_EVIDENCE",
  "STRUCTURED_OUTPUT_FAILED",
  "PLAN_ILLEGAL",
  "OUTLINE_INVALID",
  "CITATION_INVALID",
  "BUDGET_EXCEEDED",
]);

/** What rollouts run with (a `Dossier` fits). */
export interface RolloutResearcher {
  research(question: string, options?: ResearchOptions): ResearchHandle;
  runs: {
    list(options?: { limit?: number; status?: RunStatus }): Promise<RunRecord[]>;
    resume(runId: string, options?: ResumeOptions): ResearchHandle;
    events(runId: string): Promise<DossierEvent[]>;
  };
}

/** Research options every rollout shares (the rollout sets the strategy, seed, recording and tags). */
export type RolloutResearchOptions = Omit<
  ResearchOptions,
  | "signal"
  | "onEvent"
  | "runId"
  | "strategy"
  | "strategyOptions"
  | "recordCalls"
  | "seed"
  | "rollout"
  | "batch"
>;

/** Options of {@link runRollouts}. */
export interface RolloutOptions {
  rows: readonly QuestionRow[];
  /** The rollouts folder. */
  dir: string;
  strategy: string;
  /** Rollouts per question (G). */
  group: number;
  /** The base of the rollouts' seeds (default 0). */
  seed?: number;
  /** Runs under way at once at most (default 2). */
  concurrency?: number;
  /** The strategy's options given by the user (over the paper's sampling; see rollout-plan.ts). */
  strategyOptions?: Record<string, unknown>;
  research?: RolloutResearchOptions;
  /** The policy's `provider:model` per model role, pinned in the manifest (see {@link manifestConflicts}). */
  policy?: Record<string, string>;
  dossier: RolloutResearcher;
  signal?: AbortSignal;
  onProgress?: (progress: BatchProgress) => void;
  onItem?: (item: BatchItem) => void;
  /**
   * Rounds of retry for rollouts that failed outside the agent (the endpoint unreachable, a
   * timeout, the store): each round resumes them from their journals. Default 2.
   */
  infraRetries?: number;
  /** Wait before retry round k (1-based): `retryDelayMs · 2^(k−1)`. Default 2,000 ms. */
  retryDelayMs?: number;
  /** Told before each retry round, with the rollouts it takes up. */
  onRetry?: (retry: { round: number; of: number; keys: string[]; delayMs: number }) => void;
  /** The manifest's creation time (default now). */
  now?: () => string;
}

/** How a rollout invocation went. */
export interface RolloutResult {
  manifest: RolloutManifest;
  /** One per rollout, in plan order; `id` is `<question id>#<index>`. */
  items: BatchItem[];
  progress: BatchProgress;
  /** Rollouts whose run completed but could not be recorded, and why. */
  unrecorded: { key: string; runId?: string; error: string }[];
  /** Rollouts that failed by the agent's behaviour and were recorded as samples (their keys). */
  failedSamples: string[];
  /** Retry rounds run for rollouts that failed outside the agent. */
  retryRounds: number;
  runsFile: string;
}

/** Runs the rollouts not finished before; resolves when all have settled (see the module comment). */
export async function runRollouts(options: RolloutOptions): Promise<RolloutResult> {
  const dir = resolve(options.dir);
  const plan = planRollouts(options.rows, options.group, options.seed ?? 0);
  const manifest: RolloutManifest = {
    version: 1,
    strategy: options.strategy,
    group: options.group,
    seed: options.seed ?? 0,
    strategyOptions: rolloutStrategyOptions(options.strategy, options.strategyOptions),
    ...(options.policy ? { policy: { ...options.policy } } : {}),
    research: pinnedResearch(options.research),
    rowsSha256: createHash("sha256").update(JSON.stringify(options.rows)).digest("hex"),
    createdAt: options.now?.() ?? new Date().toISOString(),
  };
  const earlier = readManifest(dir);
  if (earlier) {
    const differs = manifestConflicts(earlier, manifest);
    if (differs.length)
      throw new DossierError(
        "CONFLICT",
        `${dir} holds rollouts made with other settings (${differs.join("; ")}); give another folder for other settings`,
        { details: { earlier, asked: manifest } },
      );
    manifest.createdAt = earlier.createdAt;
  }
  writeRolloutSetup(dir, manifest, options.rows);

  const byKey = new Map(plan.map((p) => [p.key, p]));
  const runsFile = rolloutPath(dir, "runs");
  const recorded = recordedKeys(runsFile);
  const failedSamples = new Set<string>();
  const record = async (result: ResearchResult): Promise<void> => {
    const sample = result.status === "failed" && AGENT_FAILURES.has(result.error?.code ?? "");
    if (!sample && (result.status !== "completed" || result.markdown === null)) return;
    const tag = (result.record.options as { rollout?: { questionId?: unknown; index?: unknown } }).rollout;
    const planned = byKey.get(`${String(tag?.questionId)}#${String(tag?.index)}`);
    if (!planned) return;
    await recordRun(options.dossier, dir, planned, result.runId, result.markdown);
    recorded.add(planned.key);
    if (sample) failedSamples.add(planned.key);
  };
  const recording = (handle: ResearchHandle): ResearchHandle => {
    const done = handle.done.then(async (result) => {
      // A run that cannot be recorded now is tried again, and reported, once all have settled.
      await record(result).catch(() => {});
      return result;
    });
    return {
      runId: handle.runId,
      done,
      cancel: (reason) => handle.cancel(reason),
      events: () => handle.events(),
      [Symbol.asyncIterator]: () => handle[Symbol.asyncIterator](),
    };
  };
  const researcher: BatchResearcher = {
    research(question, runOptions = {}) {
      const planned = byKey.get(String(runOptions.batch?.id));
      if (!planned)
        throw new DossierError("INTERNAL", `no rollout ${String(runOptions.batch?.id)} in the plan`);
      return recording(
        options.dossier.research(question, {
          ...runOptions,
          recordCalls: true,
          seed: planned.seed,
          rollout: { questionId: planned.row.id, index: planned.index },
        }),
      );
    },
    runs: {
      list: (o) => options.dossier.runs.list(o),
      resume: (runId, o) => recording(options.dossier.runs.resume(runId, o)),
    },
  };

  const { runBatch } = await import("../../runtime/batch.ts");
  const articles = rolloutPath(dir, "articles");
  const batchOnce = () =>
    runBatch({
      questions: plan.map((p) => ({
        id: p.key,
        prompt: p.row.prompt,
        ...(typeof p.row.language === "string" && p.row.language ? { language: p.row.language } : {}),
      })),
      out: articles,
      dossier: researcher,
      concurrency: options.concurrency ?? 2,
      research: {
        ...options.research,
        strategy: options.strategy,
        strategyOptions: manifest.strategyOptions,
      },
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.onItem ? { onItem: options.onItem } : {}),
    });
  const { result, rounds } = await withInfraRetries(batchOnce, failedSamples, options);

  // A rollout that finished but was not recorded (the process stopped in between, or the
  // recording failed): recorded again from the store, with the report its article holds.
  const unrecorded: RolloutResult["unrecorded"] = [];
  const reports = articleTexts(articles);
  for (const item of result.items) {
    const key = String(item.id);
    const planned = byKey.get(key);
    if (!planned || recorded.has(key) || item.status === "failed") continue;
    const report = reports.get(key);
    if (!item.runId || report === undefined) {
      unrecorded.push({ key, error: "the run that finished it is not known" });
      continue;
    }
    try {
      await recordRun(options.dossier, dir, planned, item.runId, report);
      recorded.add(key);
    } catch (error) {
      unrecorded.push({ key, runId: item.runId, error: (error as Error).message });
    }
  }
  return {
    manifest,
    items: result.items,
    progress: result.progress,
    unrecorded,
    failedSamples: [...failedSamples],
    retryRounds: rounds,
    runsFile,
  };
}

type BatchOutcome = Awaited<ReturnType<typeof import("../../runtime/batch.ts").runBatch>>;

/**
 * Runs the batch, then again while some rollout failed outside the agent (not a recorded
 * sample), at most `infraRetries` more times with a growing wait; each round resumes those
 * rollouts from their journals and skips the finished ones. The items are the latest outcome of
 * each rollout over the rounds.
 */
async function withInfraRetries(
  once: () => Promise<BatchOutcome>,
  samples: ReadonlySet<string>,
  options: Pick<RolloutOptions, "infraRetries" | "retryDelayMs" | "onRetry" | "signal">,
): Promise<{ result: BatchOutcome; rounds: number }> {
  const limit = options.infraRetries ?? 2;
  const first = await once();
  const latest = new Map(first.items.map((item) => [String(item.id), item]));
  let last = first;
  let rounds = 0;
  let costUsd = first.progress.costUsd;
  const infra = () =>
    [...latest.values()]
      .filter((i) => i.status === "failed" && !samples.has(String(i.id)))
      .map((i) => String(i.id));
  while (rounds < limit && infra().length && !options.signal?.aborted) {
    rounds++;
    const delayMs = (options.retryDelayMs ?? 2000) * 2 ** (rounds - 1);
    options.onRetry?.({ round: rounds, of: limit, keys: infra(), delayMs });
    await new Promise((r) => setTimeout(r, delayMs));
    last = await once();
    costUsd = costUsd === null || last.progress.costUsd === null ? null : costUsd + last.progress.costUsd;
    for (const item of last.items) if (item.status !== "skipped") latest.set(String(item.id), item);
  }
  const items = first.items.map((i) => latest.get(String(i.id))!);
  const count = (status: BatchItem["status"]) => items.filter((i) => i.status === status).length;
  const progress = rounds
    ? {
        ...last.progress,
        done: count("completed"),
        failed: count("failed"),
        skipped: count("skipped"),
        running: 0,
        costUsd,
      }
    : last.progress;
  return { result: { ...last, items, progress }, rounds };
}

async function recordRun(
  dossier: RolloutResearcher,
  dir: string,
  planned: PlannedRollout,
  runId: string,
  report: string | null,
): Promise<void> {
  const events = await dossier.runs.events(runId);
  appendRolloutRun(
    dir,
    recordedRunFromEvents({
      row: planned.row,
      events,
      report,
      group: { id: planned.row.id, index: planned.index },
    }),
  );
}

/** The rollouts already in `runs.jsonl` (`<question id>#<index>`). */
function recordedKeys(path: string): Set<string> {
  const keys = new Set<string>();
  if (!existsSync(path)) return keys;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const run = JSON.parse(line) as { group?: { id?: unknown; index?: unknown } };
      if (run.group) keys.add(`${String(run.group.id)}#${String(run.group.index)}`);
    } catch {
      // a line cut short by a crash
    }
  }
  return keys;
}

/** The articles file's reports by rollout key. */
function articleTexts(path: string): Map<string, string> {
  const texts = new Map<string, string>();
  if (!existsSync(path)) return texts;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const a = JSON.parse(line) as { id?: unknown; article?: unknown };
      if (typeof a.article === "string") texts.set(String(a.id), a.article);
    } catch {
      // a line cut short by a crash
    }
  }
  return texts;
}

function sorted(value: Record<string, unknown>): [string, unknown][] {
  return Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * What differs between a folder's manifest and the settings asked for, one phrase each; empty
 * when the folder may be taken up. A setting an older manifest did not record is not compared.
 */
export function manifestConflicts(earlier: RolloutManifest, asked: RolloutManifest): string[] {
  const differs: string[] = [];
  const compare = (what: string, a: unknown, b: unknown, show = true) => {
    if (a === undefined || b === undefined) return;
    const [x, y] = [canonical(a), canonical(b)];
    if (x !== y) differs.push(show ? `${what}: ${x} here, ${y} asked` : `${what} differ`);
  };
  compare("strategy", earlier.strategy, asked.strategy);
  compare("group", earlier.group, asked.group);
  compare("seed", earlier.seed, asked.seed);
  compare("strategy options", earlier.strategyOptions, asked.strategyOptions);
  compare("policy", earlier.policy, asked.policy);
  compare("research options", earlier.research, asked.research);
  compare("question rows", earlier.rowsSha256, asked.rowsSha256, false);
  return differs;
}

/** The research options a folder pins: all but the run's date (a folder may be taken up another day). */
function pinnedResearch(research: RolloutResearchOptions | undefined): Record<string, unknown> {
  const { currentDate: _date, ...rest } = (research ?? {}) as RolloutResearchOptions & {
    currentDate?: string;
  };
  return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
}

/** JSON with every object's keys in order, so equal settings compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(sorted(v as Record<string, unknown>))
      : v,
  );
}
