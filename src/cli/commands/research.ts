/**
 * `dossier research "<question>"`: a full research run — plan, search, read, write — ending in
 * a cited report on disk, with live progress on a terminal, a clean cancel on Ctrl-C, and
 * `--json` for one machine-readable summary line. In a pipeline (research-stdio.ts): `-` reads
 * the question from standard input, `--events ndjson` streams the events, `--out -` prints the
 * report, `--quiet` keeps standard error for errors.
 */

import type { Command } from "commander";
import type { DossierEvent } from "../../core/events.ts";
import { terminalLine } from "../../core/terminal-text.ts";
import type { Dossier } from "../../runtime/dossier.ts";
import type { ResearchRequest } from "../../runtime/research-request.ts";
import { createStrategyRegistry } from "../../strategies/registry.ts";
import { CliExit } from "../errors.ts";
import type { CliIo } from "../io.ts";
import { commandEntry } from "./catalog.ts";
import { budgetFromFlags, type ResearchFlags, requestFromFlags } from "./research-flags.ts";

import { collectOption, OPTION_FLAG_HELP } from "./strategy-option-flags.ts";

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
