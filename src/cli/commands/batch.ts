/**
 * `dossier batch <questions.jsonl|csv>`: research every question of a file with any strategy,
 * at most `--concurrency` runs at once. Articles go to a DeepResearch Bench raw-data JSONL
 * (`{id, prompt, article}`, default `<file>-<strategy>.jsonl` here) ready for `dossier eval
 * race` and `eval fact`; run again to retry only the questions that did not finish. Progress
 * goes to standard error (one rewritten line on a terminal, plain lines otherwise), the
 * summary table (or with `--json` one summary line) to standard output. Exit 0 when every
 * question has its article, 1 when some failed.
 */

import { basename, extname, resolve } from "node:path";
import type { Command } from "commander";
import { DossierError } from "../../core/errors.ts";
import { terminalJson, terminalLine, terminalText } from "../../core/terminal-text.ts";
import type { BatchItem, BatchProgress } from "../../runtime/batch.ts";
import { webhooksForRun } from "../../webhooks/run-webhooks.ts";
import { CliExit } from "../errors.ts";
import type { CliIo } from "../io.ts";
import type { GlobalFlags } from "../settings.ts";
import { STOP_GRACE_MS, trackedResearcher, untilStoppedOr } from "./batch-stop.ts";
import { commandEntry } from "./catalog.ts";
import type { ResearchFlags } from "./research-flags.ts";

/** Flags of `dossier batch`. */
export interface BatchFlags extends GlobalFlags {
  strategy?: string;
  concurrency?: string;
  out?: string;
  limit?: string;
  sources?: string;
  corpus?: string;
  maxTokens?: string;
  maxToolCalls?: string;
  maxMinutes?: string;
  maxCost?: string;
  maxIterations?: string;
  language?: string;
  date?: string;
  queue?: string;
  /** URLs called when each run ends or awaits review (repeatable). */
  webhook?: string[];
  json?: boolean;
}

function positive(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new DossierError("INPUT_INVALID", `${flag} must be a positive integer, got "${value}"`);
  return n;
}

/** The progress line: done / failed / running of the total, and the cost so far. */
export function progressText(p: BatchProgress): string {
  const cost = p.costUsd === null ? "cost unknown" : `$${p.costUsd.toFixed(4)}`;
  const skipped = p.skipped ? `, ${p.skipped} finished before` : "";
  return `batch: ${p.done + p.failed + p.skipped}/${p.total} — ${p.done} done, ${p.failed} failed, ${p.running} running${skipped}; ${cost}`;
}

/** Runs `dossier batch`. Resolves to the exit code. */
export async function runBatchCommand(io: CliIo, file: string, flags: BatchFlags): Promise<number> {
  const [{ createDossierForCli }, { budgetFromFlags }, batch] = await Promise.all([
    import("../dossier-cli.ts"),
    import("./research-flags.ts"),
    import("../../runtime/batch.ts"),
  ]);
  if (flags.sources && !["web", "local", "both", "local-only"].includes(flags.sources))
    throw new DossierError(
      "INPUT_INVALID",
      `--sources must be web, local, both or local-only, got "${flags.sources}"`,
    );
  const concurrency = positive("--concurrency", flags.concurrency) ?? 2;
  const limit = positive("--limit", flags.limit);
  const path = resolve(io.cwd, file);
  const questions = batch.readQuestions(path).slice(0, limit);
  const dossier = createDossierForCli(io, flags);
  // With a queue (--queue or DOSSIER_REDIS_URL) the runs are enqueued for `dossier worker`s.
  const queueUrl = flags.queue?.trim() || dossier.config.redisUrl;
  const queue = queueUrl ? (await import("../../queue/run-queue.ts")).openRunQueue({ url: queueUrl }) : null;
  const interrupt = new AbortController();
  const onSigint = () => {
    if (interrupt.signal.aborted) process.exit(130);
    io.err(
      `\ndossier: stopping the batch (finished articles are kept; run again to resume); waiting up to ${STOP_GRACE_MS / 1000} s for the runs under way (Ctrl-C again to leave now)…\n`,
    );
    interrupt.abort("interrupted (Ctrl-C)");
  };
  try {
    // The runtime's default: graph with a model, offline over documents without one.
    const fallback = dossier.models.configured() || !flags.corpus ? "graph" : "offline";
    const strategy = dossier.strategies.get(flags.strategy ?? fallback).name;
    const out = resolve(io.cwd, flags.out ?? `${basename(file, extname(file))}-${strategy}.jsonl`);
    const research = {
      strategy,
      budget: budgetFromFlags(dossier.config.budget, flags as ResearchFlags),
      ...(flags.sources ? { sources: flags.sources as "web" } : {}),
      ...(flags.corpus ? { corpus: flags.corpus } : {}),
      ...(flags.language ? { language: flags.language } : {}),
      ...(flags.date ? { currentDate: flags.date } : {}),
      ...(flags.webhook?.length ? { webhooks: flags.webhook } : {}),
    };
    // Everything checkable is checked before the first run: a bad setting fails once, here.
    dossier.estimate(questions[0]!.prompt, research);
    if (research.webhooks) await webhooksForRun(research.webhooks, dossier.config);
    if (queue) await Promise.all([queue.ready(), dossier.store.ready()]);
    const queued = queue
      ? (await import("../../queue/queued-research.ts")).queuedResearch(dossier, queue)
      : null;
    const { researcher, underWay } = trackedResearcher(queued ?? dossier);
    process.on("SIGINT", onSigint);
    let last = "";
    const show = (p: BatchProgress) => {
      const text = progressText(p);
      if (text === last || flags.json) return;
      last = text;
      io.err(io.isTty ? `\r\x1b[2K${text}` : `${text}\n`);
    };
    const onItem = (item: BatchItem) => {
      if (flags.json || io.isTty) return;
      const what = item.status === "completed" ? "finished" : `failed: ${terminalLine(item.error ?? "")}`;
      io.err(`batch: question ${terminalLine(String(item.id))} ${what}\n`);
    };
    const outcome = await untilStoppedOr(
      batch.runBatch({
        questions,
        out,
        dossier: researcher,
        concurrency,
        research,
        signal: interrupt.signal,
        onProgress: show,
        onItem,
      }),
      interrupt.signal,
    );
    if (outcome === "gave-up") {
      const ids = underWay();
      // The runs go on (or end cancelled) on their workers; this command no longer follows them.
      queued?.detach();
      io.err(
        `dossier: stopped; ${ids.length} run(s) had not ended within ${STOP_GRACE_MS / 1000} s${ids.length ? `: ${ids.map(terminalLine).join(", ")}` : ""}${queue ? " (their cancellation reaches them on their workers)" : ""}\n`,
      );
      return 130;
    }
    const result = outcome;
    if (io.isTty && !flags.json) io.err("\n");
    const { progress } = result;
    if (flags.json) {
      io.out(
        `${terminalJson({
          out: result.out,
          stateFile: result.stateFile,
          strategy,
          ...progress,
          items: result.items,
        })}\n`,
      );
    } else {
      io.out(`${terminalText(batch.formatBatchSummary(result))}\n`);
    }
    if (interrupt.signal.aborted) return 130;
    return progress.failed > 0 || progress.done + progress.skipped < progress.total ? 1 : 0;
  } finally {
    process.off("SIGINT", onSigint);
    await queue?.close();
    await dossier.close();
  }
}

/** Registers `dossier batch`. */
export function registerBatchCommand(program: Command, io: CliIo): void {
  program
    .command("batch <questions>")
    .description(commandEntry("batch").description)
    .option("--strategy <name>", "research strategy of every run (default: the configured one)")
    .option("--concurrency <n>", "runs under way at once (default 2)")
    .option(
      "--out <file>",
      "articles JSONL (default <questions>-<strategy>.jsonl here); state in <file>.state.jsonl",
    )
    .option("--limit <n>", "only the first n questions of the file")
    .option("--sources <which>", "web, local, both or local-only")
    .option("--corpus <name>", "an indexed corpus to search")
    .option("--max-tokens <n>", "token budget of each run")
    .option("--max-tool-calls <n>", "tool call budget of each run")
    .option("--max-minutes <n>", "wall time budget of each run")
    .option("--max-cost <usd>", "cost budget of each run in USD")
    .option("--max-iterations <n>", "iterations of each run's outer loop")
    .option("--language <code>", "report language (default: the file's language field, else the question's)")
    .option("--date <YYYY-MM-DD>", "the current date the runs reason with (default today)")
    .option(
      "--queue <url>",
      "enqueue the runs on Redis for dossier worker processes, redis://host:port (default DOSSIER_REDIS_URL)",
    )
    .option(
      "--webhook <url>",
      "call this URL (signed, Standard Webhooks) when each run ends or awaits review (repeatable; needs DOSSIER_WEBHOOK_SECRET)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option("--json", "print one JSON summary line instead of the table")
    .action(async (questions: string, _opts: BatchFlags, cmd: Command) => {
      const code = await runBatchCommand(io, questions, cmd.optsWithGlobals<BatchFlags>());
      if (code !== 0) throw new CliExit(code);
    });
}
