/**
 * `dossier ask "<question>"`: a deep-search question answered with the `smtl` strategy — a
 * short answer, the citations behind it with their passages, and the run's figures (steps,
 * tool calls, tool calls per step, tokens, wall time). `--json` prints one line:
 * `{ answer, citations, evidence, steps, toolCalls, toolCallsPerStep, tokens, wallMs, stopReason }`.
 * With `--about <run>`, a follow-up question about a finished run (see ask-about.ts).
 * `--domains`, `--exclude-domains` and `--since` filter the web sources as for `dossier research`
 * (a follow-up keeps its run's filter, each flag replacing that part).
 */

import type { Command } from "commander";
import { DossierError } from "../../core/errors.ts";
import { terminalJson, terminalLine } from "../../core/terminal-text.ts";
import type { AskResult } from "../../runtime/ask-run.ts";
import { CliExit } from "../errors.ts";
import type { CliIo } from "../io.ts";
import type { GlobalFlags } from "../settings.ts";
import { commandEntry } from "./catalog.ts";
import type { ResearchFlags } from "./research-flags.ts";

/** Flags of `dossier ask`. */
export interface AskFlags extends GlobalFlags {
  strategy?: string;
  sources?: string;
  docs?: string;
  corpus?: string;
  maxSteps?: string;
  refineEvery?: string;
  errorBudget?: string;
  contextTokens?: string;
  maxTokens?: string;
  maxToolCalls?: string;
  maxMinutes?: string;
  maxCost?: string;
  language?: string;
  date?: string;
  json?: boolean;
  /** A finished run the question follows up on (`--about`). */
  about?: string;
  maxSearches?: string;
  /** Allowed domains, comma-separated. */
  domains?: string;
  /** Excluded domains, comma-separated. */
  excludeDomains?: string;
  /** Only sources published since this day (YYYY-MM-DD). */
  since?: string;
}

function integer(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new DossierError("INPUT_INVALID", `${flag} must be a positive integer, got "${value}"`);
  return n;
}

/** The smtl options given on the command line. */
export function strategyOptionsFromFlags(flags: AskFlags): Record<string, number> {
  const options: Record<string, number> = {};
  const set = (key: string, flag: string, value: string | undefined) => {
    const n = integer(flag, value);
    if (n !== undefined) options[key] = n;
  };
  set("maxSteps", "--max-steps", flags.maxSteps);
  set("refineEvery", "--refine-every", flags.refineEvery);
  set("errorBudget", "--error-budget", flags.errorBudget);
  set("contextTokens", "--context-tokens", flags.contextTokens);
  return options;
}

/** The `--json` line of an ask. */
export function askJson(result: AskResult): string {
  const { answer, citations, evidence, steps, toolCalls, toolCallsPerStep, tokens, wallMs, stopReason } =
    result;
  return terminalJson({
    answer,
    citations,
    evidence,
    steps,
    toolCalls,
    toolCallsPerStep,
    tokens,
    wallMs,
    stopReason,
  });
}

/** The human-readable answer, citations and figures. */
export function formatAsk(result: AskResult): string {
  const lines: string[] = [];
  lines.push(result.answer ? `Answer: ${terminalLine(result.answer)}` : "No answer.");
  lines.push(
    result.verified
      ? "  verified: every goal of the plan is backed by evidence retrieved in this run"
      : `  not verified: answered from the evidence gathered (stop: ${result.stopReason})`,
  );
  if (result.citations.length) {
    lines.push("", "Citations:");
    for (const c of result.citations) {
      lines.push(`  [${c.number}] ${terminalLine(c.title)} — ${terminalLine(c.locator)}`);
      for (const e of result.evidence.filter((p) => p.citation === c.number)) {
        const text = terminalLine(e.text.replace(/\s+/g, " ").trim());
        lines.push(
          `      ${e.id} (${e.retrievedBy.tool}): "${text.length > 240 ? `${text.slice(0, 240)}…` : text}"`,
        );
      }
    }
  }
  const perStep = result.toolCallsPerStep === null ? "—" : result.toolCallsPerStep.toFixed(2);
  const tokens =
    result.tokens.input === null || result.tokens.output === null
      ? "tokens unknown"
      : `${result.tokens.input}+${result.tokens.output} tokens`;
  const wall = result.wallMs === null ? "" : `, ${(result.wallMs / 1000).toFixed(1)} s`;
  lines.push(
    "",
    `${result.steps} steps, ${result.toolCalls} tool calls (${perStep} per step), ${tokens}${wall}; stop: ${result.stopReason}`,
    `run ${result.runId} (dossier runs events ${result.runId})`,
  );
  return `${lines.join("\n")}\n`;
}

/** Runs `dossier ask`. Resolves to the exit code. */
export async function runAsk(io: CliIo, question: string, flags: AskFlags): Promise<number> {
  if (flags.about !== undefined) {
    const { runAskAbout } = await import("./ask-about.ts");
    return runAskAbout(io, question, flags);
  }
  const [{ createDossierForCli }, { budgetFromFlags, sourceFilterFromFlags }, { createProgressLine }] =
    await Promise.all([import("../dossier-cli.ts"), import("./research-flags.ts"), import("../progress.ts")]);
  if (flags.sources && !["web", "local", "both", "local-only"].includes(flags.sources)) {
    throw new DossierError(
      "INPUT_INVALID",
      `--sources must be web, local, both or local-only, got "${flags.sources}"`,
    );
  }
  const strategyOptions = strategyOptionsFromFlags(flags);
  const sourceFilter = sourceFilterFromFlags(flags);
  const dossier = createDossierForCli(io, flags);
  // Ctrl-C cancels the run (recorded as cancelled); a second Ctrl-C quits at once.
  const interrupt = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    io.err("\ndossier: cancelling (press Ctrl-C again to quit at once)…\n");
    interrupt.abort("interrupted (Ctrl-C)");
  };
  try {
    const budget = budgetFromFlags(dossier.config.budget, flags as ResearchFlags);
    process.on("SIGINT", onSigint);
    const progress =
      io.isTty && !flags.json ? createProgressLine((t) => io.err(t), process.stderr.columns ?? 120) : null;
    const result = await dossier.ask(question, {
      ...(progress ? { onEvent: (e) => progress.update(e) } : {}),
      strategy: flags.strategy ?? "smtl",
      ...(Object.keys(strategyOptions).length ? { strategyOptions } : {}),
      ...(flags.sources ? { sources: flags.sources as "web" } : {}),
      ...(sourceFilter ? { sourceFilter } : {}),
      ...(flags.docs ? { docs: flags.docs } : {}),
      ...(flags.corpus ? { corpus: flags.corpus } : {}),
      ...(flags.language ? { language: flags.language } : {}),
      ...(flags.date ? { currentDate: flags.date } : {}),
      budget,
      signal: interrupt.signal,
      onPrepared: (prepared) => {
        if (!flags.json) for (const notice of prepared.notices) io.err(`dossier: ${notice}\n`);
      },
    });
    progress?.done();
    io.out(flags.json ? `${askJson(result)}\n` : formatAsk(result));
    const { record } = result.research;
    if (record.status === "cancelled") return 130;
    if (record.status === "failed") {
      if (!flags.json)
        io.err(
          `dossier: error [${record.error?.code ?? "INTERNAL"}]: ${terminalLine(record.error?.message ?? record.stopReason ?? record.status)}\n`,
        );
      return 1;
    }
    return 0;
  } finally {
    process.off("SIGINT", onSigint);
    await dossier.close();
  }
}

/** Registers `dossier ask`. */
export function registerAskCommand(program: Command, io: CliIo): void {
  program
    .command("ask <question>")
    .description(commandEntry("ask").description)
    .option("--strategy <name>", "strategy that answers (default smtl)")
    .option("--sources <which>", "web, local, both or local-only (default: web; both/local with --docs)")
    .option("--docs <dir>", "a folder of your documents, indexed first (incrementally)")
    .option("--corpus <name>", "an indexed corpus to search (default: named after --docs)")
    .option("--max-steps <n>", "tool-calling steps at most (default 100)")
    .option("--refine-every <n>", "steps between plan refinements (default 5)")
    .option("--error-budget <n>", "malformed model replies tolerated (default 10)")
    .option(
      "--context-tokens <n>",
      "conversation size that forces a reset to the plan (default: the model's context window, at most 131072)",
    )
    .option("--max-tokens <n>", "token budget (input + output)")
    .option("--max-tool-calls <n>", "tool call budget")
    .option("--max-minutes <n>", "wall time budget")
    .option("--max-cost <usd>", "cost budget in USD")
    .option(
      "--domains <list>",
      "use only web sources on these domains and the hosts below them (comma list, at most 20)",
    )
    .option("--exclude-domains <list>", "never use web sources on these domains (comma list, at most 20)")
    .option("--since <YYYY-MM-DD>", "drop web results known to be published before this day")
    .option("--language <code>", "answer language (default: the question's)")
    .option("--date <YYYY-MM-DD>", "the current date the run reasons with (default today)")
    .option("--about <run>", "a follow-up question about a finished run: answered from its evidence first")
    .option(
      "--max-searches <n>",
      "with --about: searches at most when its evidence does not suffice (0-5, default 2)",
    )
    .option("--json", "print one JSON line: answer, citations, evidence and figures")
    .action(async (question: string, _opts: AskFlags, cmd: Command) => {
      const code = await runAsk(io, question, cmd.optsWithGlobals<AskFlags>());
      if (code !== 0) throw new CliExit(code);
    });
}
