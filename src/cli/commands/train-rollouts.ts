/**
 * `dossier train rollouts <questions> --strategy S --group G --concurrency N --out DIR`: G
 * independent rollouts of every question row, each a recorded research run with its own seed
 * and the strategy paper's sampling, into a rollouts folder (see train/rollouts/). Run it again
 * to take up what did not finish. Every setting is checked before the first model call.
 * Progress goes to standard error, the summary (or with `--json` one line) to standard output.
 * Exit 0 when every rollout finished and was recorded, 1 otherwise.
 */

import { resolve } from "node:path";
import type { Command } from "commander";
import type { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { terminalJson, terminalLine } from "../../core/terminal-text.ts";
import { ROLES } from "../../llm/model-spec.ts";
import type { ModelRegistry } from "../../llm/registry.ts";
import type { BatchItem, BatchProgress } from "../../runtime/batch.ts";
import { createStrategyRegistry } from "../../strategies/registry.ts";
import { CliExit } from "../errors.ts";
import type { CliIo } from "../io.ts";
import type { GlobalFlags } from "../settings.ts";
import type { ResearchFlags } from "./research-flags.ts";
import { collectOption, OPTION_FLAG_HELP, optionFlagValues, refuseTwice } from "./strategy-option-flags.ts";

/** Flags of `dossier train rollouts`. */
export interface RolloutFlags extends GlobalFlags {
  strategy?: string;
  group: string;
  concurrency?: string;
  out?: string;
  rows: string;
  criteria?: string;
  references?: string;
  limit?: string;
  seed: string;
  temperature?: string;
  topP?: string;
  mode?: string;
  maxSteps?: string;
  maxExpansions?: string;
  forceExpand?: string;
  sources?: string;
  corpus?: string;
  maxTokens?: string;
  maxToolCalls?: string;
  maxMinutes?: string;
  maxCost?: string;
  maxIterations?: string;
  language?: string;
  date?: string;
  /** `key=value` strategy options (the value read as JSON when it parses, else as text). */
  option: string[];
  json?: boolean;
  /** Redis URL of the run queue: the rollouts are enqueued for `dossier worker`s. */
  queue?: string;
  /** Record every call's token ids and log-probs from the server (`recordTokens`). */
  tokens?: boolean;
  /** Atomic-skill rollouts of this WARP action from the teacher folder given (train-rollouts-atomic.ts). */
  atomic?: string;
}

function integer(flag: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new DossierError("INPUT_INVALID", `${flag} must be an integer ≥ ${min}, got "${value}"`);
  return n;
}

function real(flag: string, value: string | undefined, ok: (n: number) => boolean, range: string) {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || !ok(n))
    throw new DossierError("INPUT_INVALID", `${flag} must be ${range}, got "${value}"`);
  return n;
}

/**
 * The strategy options the flags give (the paper's sampling and smtl's mode are added under
 * them); `optionsSchema` (the strategy's) keeps the `--option` values of its text options text.
 */
export function rolloutFlagOptions(flags: RolloutFlags, optionsSchema?: z.ZodType): Record<string, unknown> {
  const temperature = real("--temperature", flags.temperature, (n) => n >= 0 && n <= 2, "between 0 and 2");
  const topP = real("--top-p", flags.topP, (n) => n > 0 && n <= 1, "in (0, 1]");
  const maxExpansions = integer("--max-expansions", flags.maxExpansions, 0);
  const forceExpand = integer("--force-expand", flags.forceExpand, 0);
  const options = optionFlagValues(flags.option ?? [], optionsSchema);
  refuseTwice(
    [
      ["--temperature", "temperature", temperature],
      ["--top-p", "topP", topP],
      ["--mode", "mode", flags.mode],
      ["--max-expansions", "maxExpansions", maxExpansions],
      ["--force-expand", "forceExpand", forceExpand],
      ["--max-steps", "maxSteps", flags.maxSteps],
    ],
    options,
  );
  return {
    ...options,
    ...(temperature === undefined ? {} : { temperature }),
    ...(topP === undefined ? {} : { topP }),
    ...(flags.mode === undefined ? {} : { mode: flags.mode }),
    ...(maxExpansions === undefined ? {} : { maxExpansions }),
    ...(forceExpand === undefined ? {} : { forceExpand }),
  };
}

/** Runs `dossier train rollouts`. Resolves to the exit code. */
export async function runTrainRollouts(io: CliIo, file: string, flags: RolloutFlags): Promise<number> {
  if (flags.atomic !== undefined)
    return (await import("./train-rollouts-atomic.ts")).runAtomicRollouts(io, file, flags);
  const [{ createDossierForCli }, { budgetFromFlags }, { progressText }, rowsFile, plan, rollouts] =
    await Promise.all([
      import("../dossier-cli.ts"),
      import("./research-flags.ts"),
      import("./batch.ts"),
      import("../../train/rows/rows-file.ts"),
      import("../../train/rollouts/rollout-plan.ts"),
      import("../../train/rollouts/run-rollouts.ts"),
    ]);
  if (!flags.strategy)
    throw new DossierError("INPUT_INVALID", "--strategy is required (e.g. --strategy smtl)");
  if (!flags.out) throw new DossierError("INPUT_INVALID", "--out <dir> is required: the rollouts folder");
  const group = integer("--group", flags.group, 1)!;
  const concurrency = integer("--concurrency", flags.concurrency, 1) ?? 2;
  const seed = integer("--seed", flags.seed, 0)!;
  const limit = integer("--limit", flags.limit, 1);
  const maxSteps = integer("--max-steps", flags.maxSteps, 0);
  if (!(rowsFile.ROW_FILE_KINDS as readonly string[]).includes(flags.rows))
    throw new DossierError(
      "INPUT_INVALID",
      `--rows must be ${rowsFile.ROW_FILE_KINDS.join(", ")}, got "${flags.rows}"`,
    );
  if (flags.sources && !["web", "local", "both", "local-only"].includes(flags.sources))
    throw new DossierError(
      "INPUT_INVALID",
      `--sources must be web, local, both or local-only, got "${flags.sources}"`,
    );
  const known = createStrategyRegistry();
  const userOptions = rolloutFlagOptions(
    flags,
    known.names().includes(flags.strategy) ? known.get(flags.strategy).optionsSchema : undefined,
  );
  const rows = rowsFile
    .readRowsFile(resolve(io.cwd, file), {
      kind: flags.rows as (typeof rowsFile.ROW_FILE_KINDS)[number],
      ...(flags.criteria ? { criteria: resolve(io.cwd, flags.criteria) } : {}),
      ...(flags.references ? { references: resolve(io.cwd, flags.references) } : {}),
    })
    .slice(0, limit);
  const dir = resolve(io.cwd, flags.out);

  const dossier = createDossierForCli(io, flags);
  // With a queue (--queue or DOSSIER_REDIS_URL) the rollouts are enqueued for `dossier worker`s,
  // which record them into the shared store; this process follows them and writes the folder.
  const queueUrl = flags.queue?.trim() || dossier.config.redisUrl;
  const queue = queueUrl ? (await import("../../queue/run-queue.ts")).openRunQueue({ url: queueUrl }) : null;
  const interrupt = new AbortController();
  const onSigint = () => {
    io.err("\ndossier: stopping the rollouts (finished ones are kept; run again to resume)…\n");
    interrupt.abort("interrupted (Ctrl-C)");
  };
  try {
    const strategy = dossier.strategies.get(flags.strategy).name;
    const research = {
      budget: budgetFromFlags(dossier.config.budget, flags as ResearchFlags),
      ...(flags.sources ? { sources: flags.sources as "web" } : {}),
      ...(flags.corpus ? { corpus: flags.corpus } : {}),
      ...(flags.language ? { language: flags.language } : {}),
      ...(flags.date ? { currentDate: flags.date } : {}),
      ...(maxSteps === undefined ? {} : { maxSteps }),
      ...(flags.tokens ? { recordTokens: true } : {}),
    };
    // Everything checkable is checked before the first model call: a bad setting fails here, once.
    dossier.estimate(rows[0]!.prompt, {
      ...research,
      strategy,
      strategyOptions: plan.rolloutStrategyOptions(strategy, userOptions),
    });
    if (queue) await Promise.all([queue.ready(), dossier.store.ready()]);
    const queued = queue
      ? (await import("../../queue/queued-research.ts")).queuedResearch(dossier, queue)
      : null;
    process.on("SIGINT", onSigint);
    let last = "";
    const show = (p: BatchProgress) => {
      const text = progressText(p).replace(/^batch:/, "rollouts:");
      if (text === last || flags.json) return;
      last = text;
      io.err(io.isTty ? `\r\x1b[2K${text}` : `${text}\n`);
    };
    const onItem = (item: BatchItem) => {
      if (flags.json || io.isTty) return;
      const what = item.status === "completed" ? "finished" : `failed: ${terminalLine(item.error ?? "")}`;
      io.err(`rollouts: ${terminalLine(String(item.id))} ${what}\n`);
    };
    const result = await rollouts.runRollouts({
      rows,
      dir,
      strategy,
      group,
      seed,
      concurrency,
      strategyOptions: userOptions,
      research,
      policy: policyOf(dossier.models),
      dossier: queued
        ? {
            research: (q, o) => queued.research(q, o),
            runs: {
              list: (o) => queued.runs.list(o),
              resume: (id, o) => queued.runs.resume(id, o),
              events: (id) => dossier.runs.events(id),
            },
          }
        : { research: (q, o) => dossier.research(q, o), runs: dossier.runs },
      signal: interrupt.signal,
      onProgress: show,
      onItem,
    });
    if (io.isTty && !flags.json) io.err("\n");
    const p = result.progress;
    // A rollout that failed by the agent's behaviour is a recorded sample: it reached its end.
    const samples = new Set(result.failedSamples);
    const summary = {
      dir,
      strategy,
      questions: rows.length,
      group,
      total: p.total,
      done: p.done,
      failed: p.failed,
      skipped: p.skipped,
      costUsd: p.costUsd,
      unrecorded: result.unrecorded,
      runs: result.runsFile,
      failures: result.items
        .filter((i) => i.status === "failed")
        .map((i) => ({ id: i.id, error: i.error, recorded: samples.has(String(i.id)) })),
    };
    if (flags.json) io.out(`${terminalJson(summary)}\n`);
    else {
      const lines = [
        `${p.done} finished, ${p.failed} failed, ${p.skipped} finished before, of ${p.total} rollouts (${rows.length} questions × ${group}, ${strategy})`,
        ...summary.failures.map(
          (f) => `failed ${f.id}: ${f.error ?? ""}${f.recorded ? " (recorded as a sample)" : ""}`,
        ),
        ...result.unrecorded.map((u) => `not recorded ${u.key}: ${u.error}`),
        `recorded runs: ${result.runsFile}`,
      ];
      io.out(`${lines.map(terminalLine).join("\n")}\n`);
    }
    if (interrupt.signal.aborted) return 130;
    const unended = summary.failures.filter((f) => !f.recorded).length;
    return unended > 0 || result.unrecorded.length > 0 || p.done + p.skipped + samples.size < p.total ? 1 : 0;
  } finally {
    process.off("SIGINT", onSigint);
    await queue?.close();
    await dossier.close();
  }
}

/** Registers `dossier train rollouts`. */
export function registerTrainRollouts(train: Command, io: CliIo): void {
  train
    .command("rollouts <questions>")
    .description(
      "G recorded rollouts of every question row (distinct seeds, the paper's sampling) into a folder; resumable",
    )
    .option("--strategy <name>", "research strategy of every rollout (required), e.g. smtl or warp")
    .option("--group <n>", "rollouts per question (G)", "4")
    .option("--concurrency <n>", "runs under way at once (default 2)")
    .option("--out <dir>", "the rollouts folder (required)")
    .option(
      "--rows <kind>",
      "the questions file: rows ({id, prompt, answer?, entities?, reference?, rubric?} JSONL), deepresearch-bench (query.jsonl), deepconsult (queries.csv) or xbench (an encrypted DeepSearch CSV)",
      "rows",
    )
    .option("--criteria <file>", "DeepResearch Bench: criteria.jsonl (the rows' RACE rubrics)")
    .option(
      "--references <file>",
      "DeepResearch Bench: reference articles JSONL (the rows' reference reports)",
    )
    .option("--limit <n>", "only the first n questions")
    .option("--seed <n>", "base of the rollouts' sampling seeds", "0")
    .option("--temperature <t>", "sampling temperature (default: the paper's; smtl 1.0, warp 0.7)")
    .option("--top-p <p>", "nucleus sampling (default: the paper's; smtl 0.9, warp 0.8)")
    .option("--mode <mode>", "smtl: answer (a short answer; default for rollouts) or research")
    .option("--max-steps <n>", "model-driven steps per search agent (minddr)")
    .option("--max-expansions <n>", "sections the draft may be deepened by (warp)")
    .option("--force-expand <n>", "always deepen n times and snapshot every draft (warp)")
    .option("--sources <which>", "web, local, both or local-only")
    .option("--corpus <name>", "an indexed corpus to search")
    .option("--max-tokens <n>", "token budget of each rollout")
    .option("--max-tool-calls <n>", "tool call budget of each rollout")
    .option("--max-minutes <n>", "wall time budget of each rollout")
    .option("--max-cost <usd>", "cost budget of each rollout in USD")
    .option("--max-iterations <n>", "iterations of each rollout's outer loop")
    .option("--language <code>", "report language (default: the row's, else the question's)")
    .option("--date <YYYY-MM-DD>", "the current date the runs reason with (default today)")
    .option("--option <key=value>", OPTION_FLAG_HELP, collectOption, [] as string[])
    .option("--json", "print one JSON summary line")
    .option(
      "--tokens",
      "record each call's prompt and completion token ids and log-probs from the server (vLLM, SGLang); a native protocol's structured answers are asked in the prompt",
    )
    .option(
      "--atomic <action>",
      "atomic-skill rollouts (WARP A.6.1): <questions> is a folder of recorded warp rollouts, and G samples of one action (initialize, search, write or deepen) are drawn from each of its teacher states",
    )
    .option(
      "--queue <url>",
      "enqueue the rollouts on Redis for dossier worker processes, redis://host:port (default DOSSIER_REDIS_URL)",
    )
    .action(async (questions: string, _opts: RolloutFlags, cmd: Command) => {
      const code = await runTrainRollouts(io, questions, cmd.optsWithGlobals<RolloutFlags>());
      if (code !== 0) throw new CliExit(code);
    });
}

/** The `provider:model` each model role resolves to: the policy a rollouts folder pins. */
function policyOf(models: ModelRegistry): Record<string, string> {
  const policy: Record<string, string> = {};
  for (const role of ROLES) {
    try {
      policy[role] = models.forRole(role).name;
    } catch {
      // a role no model serves
    }
  }
  return policy;
}
