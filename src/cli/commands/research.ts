/**
 * `dossier research "<question>"`: a full research run — plan, search, read, write — ending in
 * a cited report on disk, with live progress on a terminal, a clean cancel on Ctrl-C, and
 * `--json` for one machine-readable summary line. In a pipeline (research-stdio.ts): `-` reads
 * the question from standard input, `--events ndjson` streams the events, `--out -` prints the
 * report, `--quiet` keeps standard error for errors.
 */

import type { Command } from "commander";
import type { z } from "zod";
import type { BudgetLimits } from "../../core/budget.ts";
import { VERIFY_MODES, type VerifyMode } from "../../core/claim-verdicts.ts";
import { DossierError } from "../../core/errors.ts";
import type { DossierEvent } from "../../core/events.ts";
import { isReportFormat, type ReportFormat, reportFormatList } from "../../core/report-formats.ts";
import { terminalLine } from "../../core/terminal-text.ts";
import type { Dossier } from "../../runtime/dossier.ts";
import type { ResearchRequest } from "../../runtime/research-request.ts";
import { createStrategyRegistry } from "../../strategies/registry.ts";
import { type SourceFilter, sourceFilterSchema } from "../../tools/source-filter.ts";
import { CliExit } from "../errors.ts";
import type { CliIo } from "../io.ts";
import type { GlobalFlags } from "../settings.ts";
import { commandEntry } from "./catalog.ts";
import { collectOption, OPTION_FLAG_HELP, optionFlagValues, refuseTwice } from "./strategy-option-flags.ts";

/** Flags of `dossier research`. */
export interface ResearchFlags extends GlobalFlags {
  strategy?: string;
  /** URLs called when the run ends or awaits review (repeatable). */
  webhook?: string[];
  sources?: string;
  docs?: string;
  corpus?: string;
  maxTokens?: string;
  maxToolCalls?: string;
  maxMinutes?: string;
  maxCost?: string;
  maxIterations?: string;
  maxSteps?: string;
  maxExpansions?: string;
  forceExpand?: string;
  mode?: string;
  language?: string;
  out?: string;
  format?: string;
  date?: string;
  concurrency?: string;
  estimate?: boolean;
  json?: boolean;
  recordCalls?: boolean;
  events?: string;
  quiet?: boolean;
  interactive?: boolean;
  verify?: string;
  /** `key=value` strategy options (see strategy-option-flags.ts). */
  option?: string[];
  /** Allowed domains, comma-separated. */
  domains?: string;
  /** Excluded domains, comma-separated. */
  excludeDomains?: string;
  /** Only sources published since this day (YYYY-MM-DD). */
  since?: string;
  /** Stop after the strategy's plan for review. */
  reviewPlan?: boolean;
  /** Minutes the plan waits for its review. */
  reviewTimeout?: string;
}

const FILTER_FLAGS: Readonly<Record<string, string>> = {
  domains: "--domains",
  excludeDomains: "--exclude-domains",
  since: "--since",
};

/**
 * The source filter of `--domains`, `--exclude-domains` and `--since`, checked (at most 20 host
 * names a list, none in both, a date not in the future): INPUT_INVALID naming the flag.
 */
export function sourceFilterFromFlags(flags: ResearchFlags): SourceFilter | undefined {
  const list = (value: string | undefined) =>
    value === undefined
      ? undefined
      : value
          .split(",")
          .map((d) => d.trim())
          .filter(Boolean);
  const domains = list(flags.domains);
  const excludeDomains = list(flags.excludeDomains);
  if (domains === undefined && excludeDomains === undefined && flags.since === undefined) return undefined;
  const parsed = sourceFilterSchema.safeParse({
    ...(domains ? { domains } : {}),
    ...(excludeDomains ? { excludeDomains } : {}),
    ...(flags.since === undefined ? {} : { since: flags.since }),
  });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const flag = FILTER_FLAGS[String(issue.path[0])];
  throw new DossierError("INPUT_INVALID", flag ? `${flag}: ${issue.message}` : issue.message);
}

/** Asks clarifying questions on the terminal, one per line. */
async function askOnTerminal(questions: string[]): Promise<string[]> {
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answers: string[] = [];
    process.stderr.write(
      "The question is ambiguous; a few answers will focus the research (Enter to skip):\n",
    );
    // The questions are model output: shown as one escaped line each.
    for (const q of questions) answers.push(await rl.question(`  ${terminalLine(q)} `));
    return answers;
  } finally {
    rl.close();
  }
}

function number(flag: string, value: string | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new DossierError(
      "INPUT_INVALID",
      `${flag} must be a positive ${integer ? "integer" : "number"}, got "${value}"`,
    );
  }
  return n;
}

/** The budget from the configuration's defaults and the flags. */
export function budgetFromFlags(defaults: BudgetLimits, flags: ResearchFlags): BudgetLimits {
  const minutes = number("--max-minutes", flags.maxMinutes, false);
  const b: BudgetLimits = { ...defaults };
  const set = <K extends keyof BudgetLimits>(key: K, value: BudgetLimits[K] | undefined) => {
    if (value !== undefined) b[key] = value;
  };
  set("maxTokens", number("--max-tokens", flags.maxTokens, true));
  set("maxToolCalls", number("--max-tool-calls", flags.maxToolCalls, true));
  set("maxWallMs", minutes === undefined ? undefined : Math.round(minutes * 60_000));
  set("maxCostUsd", number("--max-cost", flags.maxCost, false));
  set("maxIterations", number("--max-iterations", flags.maxIterations, true));
  return b;
}

/**
 * The request from the question and flags. `optionsSchema` (the chosen strategy's) keeps the
 * `--option` values of its text options text; the run checks them all against it.
 */
export function requestFromFlags(
  query: string,
  flags: ResearchFlags,
  budget: BudgetLimits,
  language?: string,
  optionsSchema?: z.ZodType,
): ResearchRequest {
  const formats = (flags.format ?? "md")
    .split(",")
    .map((f) => f.trim().toLowerCase())
    .filter(Boolean);
  for (const f of formats) {
    if (!isReportFormat(f))
      throw new DossierError("INPUT_INVALID", `--format takes ${reportFormatList("and")}, got "${f}"`);
  }
  const twice = formats.find((f, i) => formats.indexOf(f) !== i);
  if (twice) throw new DossierError("INPUT_INVALID", `--format: "${twice}" is given more than once`);
  if (flags.sources && !["web", "local", "both", "local-only"].includes(flags.sources)) {
    throw new DossierError(
      "INPUT_INVALID",
      `--sources must be web, local, both or local-only, got "${flags.sources}"`,
    );
  }
  if (flags.verify !== undefined && !(VERIFY_MODES as readonly string[]).includes(flags.verify)) {
    throw new DossierError(
      "INPUT_INVALID",
      `--verify must be off, check, judge or rewrite, got "${flags.verify}"`,
    );
  }
  const concurrency = number("--concurrency", flags.concurrency, true);
  const reviewTimeout = number("--review-timeout", flags.reviewTimeout, false);
  if (reviewTimeout !== undefined && !flags.reviewPlan)
    throw new DossierError("INPUT_INVALID", "--review-timeout goes with --review-plan");
  const sourceFilter = sourceFilterFromFlags(flags);
  const maxSteps = flags.maxSteps === undefined ? undefined : Number(flags.maxSteps);
  const byOption = optionFlagValues(flags.option ?? [], optionsSchema);
  refuseTwice(
    [
      ["--max-steps", "maxSteps", flags.maxSteps],
      ["--max-expansions", "maxExpansions", flags.maxExpansions],
      ["--force-expand", "forceExpand", flags.forceExpand],
      ["--mode", "mode", flags.mode],
    ],
    byOption,
  );
  const strategyOptions = {
    ...(flags.maxExpansions === undefined ? {} : { maxExpansions: Number(flags.maxExpansions) }),
    ...(flags.forceExpand === undefined ? {} : { forceExpand: Number(flags.forceExpand) }),
    ...(flags.mode === undefined ? {} : { mode: flags.mode }),
    ...byOption,
  };
  return {
    query,
    ...(flags.strategy ? { strategy: flags.strategy } : {}),
    ...(flags.sources ? { sources: flags.sources as ResearchRequest["sources"] } : {}),
    ...(sourceFilter ? { sourceFilter } : {}),
    ...(flags.docs ? { docs: flags.docs } : {}),
    ...(flags.corpus ? { corpus: flags.corpus } : {}),
    language: flags.language ?? language ?? "auto",
    formats: formats as ReportFormat[],
    budget,
    ...(flags.out ? { out: flags.out } : {}),
    ...(flags.date ? { currentDate: flags.date } : {}),
    ...(concurrency ? { concurrency } : {}),
    ...(maxSteps !== undefined ? { maxSteps } : {}),
    ...(Object.keys(strategyOptions).length ? { strategyOptions } : {}),
    ...(flags.recordCalls ? { recordCalls: true } : {}),
    ...(flags.verify ? { verify: flags.verify as VerifyMode } : {}),
    ...(flags.webhook?.length ? { webhooks: flags.webhook } : {}),
    ...(flags.reviewPlan ? { reviewPlan: true } : {}),
    ...(reviewTimeout === undefined ? {} : { reviewTimeoutMinutes: reviewTimeout }),
  };
}

/** Runs `dossier research`. Resolves to the exit code. */
export async function runResearch(io: CliIo, question: string, flags: ResearchFlags): Promise<number> {
  const [{ createDossierForCli }, { printRunResult }, { formatIndexSummary }, { createProgressLine }, stdio] =
    await Promise.all([
      import("../dossier-cli.ts"),
      import("./research-output.ts"),
      import("../../tools/corpus/index-summary.ts"),
      import("../progress.ts"),
      import("./research-stdio.ts"),
    ]);
  stdio.checkStdioFlags(flags);
  const query = await stdio.readQuestion(io, question);
  const toStdout = flags.out === "-";
  const ndjson = flags.events === "ndjson";
  // What the run says besides its result: progress, notices (off with --quiet or machine output).
  const note = flags.quiet ? () => {} : (text: string) => io.err(text);
  const dossier = createDossierForCli(io, flags);
  const strategy = flags.strategy;
  let request: ResearchRequest;
  try {
    request = requestFromFlags(
      query,
      toStdout ? { ...flags, out: undefined } : flags,
      budgetFromFlags(dossier.config.budget, flags),
      dossier.config.language,
      strategy && dossier.strategies.names().includes(strategy)
        ? dossier.strategies.get(strategy).optionsSchema
        : undefined,
    );
  } catch (error) {
    // A refused flag: nothing was started; the store is closed before the error is shown.
    await dossier.close();
    throw error;
  }
  // Ctrl-C or SIGTERM aborts indexing or the run (recorded as cancelled); a second Ctrl-C quits at once.
  const interrupt = new AbortController();
  let interrupts = 0;
  let terminated = false;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    io.err("\ndossier: cancelling (press Ctrl-C again to quit at once)…\n");
    interrupt.abort("interrupted (Ctrl-C)");
  };
  const onSigterm = () => {
    terminated = true;
    interrupt.abort("terminated (SIGTERM)");
  };
  try {
    const { query: _q, ...options } = request;
    if (flags.estimate) {
      const estimate = dossier.estimate(query, options);
      const { formatEstimate } = await import("../../runtime/estimate.ts");
      io.out(flags.json || ndjson ? `${JSON.stringify(estimate)}\n` : formatEstimate(estimate));
      return 0;
    }
    process.on("SIGINT", onSigint);
    process.on("SIGTERM", onSigterm);
    const interactive = flags.interactive === true && io.isTty && Boolean(process.stdin.isTTY);
    const machine = flags.json === true || ndjson;
    const progress =
      io.isTty && !machine && !flags.quiet
        ? createProgressLine((t) => io.err(t), process.stderr.columns ?? 120)
        : null;
    // Recorded model calls (--record-calls) are training data: in the store, not in the live stream.
    const writeEvent = ndjson ? stdio.ndjsonWriter(io) : null;
    const onEvent = writeEvent
      ? (e: DossierEvent) => {
          if (e.type !== "llm-call") writeEvent(e);
        }
      : progress
        ? (e: DossierEvent) => progress.update(e)
        : null;
    const handle = dossier.research(query, {
      ...options,
      signal: interrupt.signal,
      onIndexed: (summary) => {
        note(`${formatIndexSummary(summary)}\n`);
        // Each document left out is named, with why (as `dossier index` does).
        for (const s of summary.skipped)
          note(
            `skipped ${terminalLine(s.path)}: ${s.reason}${s.detail ? ` (${terminalLine(s.detail)})` : ""}\n`,
          );
      },
      onPrepared: (prepared) => {
        for (const notice of prepared.notices) note(`dossier: ${notice}\n`);
        if (flags.interactive && !interactive) {
          note("dossier: --interactive needs a terminal; continuing and recording assumptions instead\n");
        }
        if (!machine && !io.isTty) note(`dossier: run ${handle.runId} started (${prepared.strategy})\n`);
      },
      ...(onEvent ? { onEvent } : {}),
      ...(interactive ? { clarify: askOnTerminal } : {}),
    });
    const result = await handle.done;
    progress?.done();
    if (result.status === "awaiting-review") {
      // Stopped after its plan: asked now on a terminal; elsewhere the plan is printed, the run
      // stays awaiting review and the command exits 0 (answer it with dossier runs review).
      const review = await import("./runs-review.ts");
      const answer =
        io.isTty && process.stdin.isTTY && !machine && !toStdout && !flags.quiet
          ? await review.askReview(io, result)
          : null;
      if (answer) {
        return await review.answerAndFollow(io, dossier, result.runId, answer, {
          json: false,
          signal: interrupt.signal,
          terminated: () => terminated,
          ...(progress ? { onEvent: (e: DossierEvent) => progress.update(e) } : {}),
        });
      }
      return printRunResult(toStdout ? stdio.summaryToStderr(io, false) : io, result, {
        json: machine,
        terminated,
      });
    }
    await settleWebhooks(dossier, result.runId, note);

    if (!toStdout) return printRunResult(io, result, { json: machine, terminated });
    stdio.printReport(io, result);
    return printRunResult(stdio.summaryToStderr(io, flags.quiet === true), result, { terminated });
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
    await dossier.close();
  }
}

/**
 * Gives the run's first webhook attempts `webhooks.exitWaitMs` and says what is still pending:
 * those stay in the store, and `dossier serve` or `dossier worker` over the same store send them.
 */
async function settleWebhooks(dossier: Dossier, runId: string, note: (text: string) => void): Promise<void> {
  try {
    await dossier.webhooks.settle(dossier.config.webhooks.exitWaitMs);
    const deliveries = await dossier.store.deliveries.list(runId);
    const pending = deliveries.filter((d) => d.state === "pending").length;
    const failed = deliveries.filter((d) => d.state === "failed").length;
    if (pending > 0) {
      note(
        `dossier: ${pending} webhook ${pending === 1 ? "delivery" : "deliveries"} not delivered yet; kept in the store for dossier serve or dossier worker to retry (dossier runs show ${runId})\n`,
      );
    }
    if (failed > 0)
      note(
        `dossier: ${failed} webhook ${failed === 1 ? "delivery" : "deliveries"} given up (dossier runs show ${runId})\n`,
      );
  } catch {
    // The run's outcome is what this command reports; deliveries are listed by runs show.
  }
}

/** Registers `dossier research`. */
export function registerResearchCommand(program: Command, io: CliIo): void {
  program
    .command("research <question>")
    .usage("[options] <question> (- reads it from stdin)")
    .description(commandEntry("research").description)
    .option(
      "--strategy <name>",
      `research strategy: ${createStrategyRegistry().names().join(", ")} (default graph with a model, offline without; see dossier strategies)`,
    )
    .option("--sources <which>", "web, local, both or local-only (default: web; both/local with --docs)")
    .option(
      "--domains <list>",
      "use only web sources on these domains and the hosts below them (comma list, at most 20)",
    )
    .option("--exclude-domains <list>", "never use web sources on these domains (comma list, at most 20)")
    .option("--since <YYYY-MM-DD>", "drop web results known to be published before this day")
    .option("--docs <dir>", "a folder of your documents, indexed first (incrementally)")
    .option("--corpus <name>", "an indexed corpus to search (default: named after --docs)")
    .option("--max-tokens <n>", "token budget (input + output)")
    .option("--max-tool-calls <n>", "tool call budget")
    .option("--max-minutes <n>", "wall time budget")
    .option("--max-cost <usd>", "cost budget in USD")
    .option("--max-iterations <n>", "iterations of the strategy's loop (minddr: search steps)")
    .option(
      "--max-steps <n>",
      "model-driven steps per search agent (minddr; default 12; at most 30, any strategy's full range with --option maxSteps=n)",
    )
    .option("--max-expansions <n>", "sections the draft may be deepened by (warp; default 12)")
    .option("--force-expand <n>", "always deepen n times, score every draft and keep the best (warp)")
    .option(
      "--mode <mode>",
      "smtl: research (subtasks, then a full cited report: the seed's deep-research mode; default) or answer (a short verified answer, as dossier ask gives)",
    )
    .option("--option <key=value>", OPTION_FLAG_HELP, collectOption, [] as string[])
    .option(
      "--webhook <url>",
      "call this URL (signed, Standard Webhooks) when the run ends or awaits review (repeatable; needs DOSSIER_WEBHOOK_SECRET)",
      collectOption,
      [] as string[],
    )
    .option("--language <code>", "report language (default: the question's)")
    .option(
      "--out <path>",
      "file base (report → report.md …) or directory for the report; - prints it on stdout",
    )
    .option("--format <list>", "md, html, json, pdf, docx (comma list; pdf needs chromium)", "md")
    .option("--date <YYYY-MM-DD>", "the current date the run reasons with (default today)")
    .option("--concurrency <n>", "agents and calls at once")
    .option("--interactive", "on a terminal, answer clarifying questions about an ambiguous question (graph)")
    .option(
      "--verify <mode>",
      "claim check after writing: check (default, lexical, no model call), judge (the judge model), rewrite (judge, then revise or drop unsupported claims), off",
    )
    .option(
      "--review-plan",
      "stop after the strategy's plan to approve, edit or reject it: asked now on a terminal, else the run waits (answer with dossier runs review <id>)",
    )
    .option(
      "--review-timeout <minutes>",
      "minutes the plan waits for its answer (default a day, reviewTimeoutMinutes); then the run fails, never approved",
    )
    .option("--estimate", "print the expected calls and cost, run nothing")
    .option(
      "--record-calls",
      "keep every model call for training (messages, sampling, raw completion, format errors) in the run's log",
    )
    .option("--json", "print one JSON summary line at the end")
    .option(
      "--events <format>",
      "ndjson: every event live on stdout as one JSON line, the --json summary last",
    )
    .option("--quiet", "no progress or notices on stderr (errors only)")
    .action(async (question: string, _opts: ResearchFlags, cmd: Command) => {
      const code = await runResearch(io, question, cmd.optsWithGlobals<ResearchFlags>());
      if (code !== 0) throw new CliExit(code);
    });
}
