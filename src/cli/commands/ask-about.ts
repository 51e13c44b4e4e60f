/**
 * `dossier ask --about <run> "<question>"`: a follow-up question about a finished run, answered
 * from its evidence first with its report's reference numbers, searching only when that
 * evidence does not suffice. `--json` prints one line:
 * `{ runId, about, answer, citations, fromRunEvidence, searches, status }`.
 */

import { DossierError } from "../../core/errors.ts";
import { terminalJson, terminalLine } from "../../core/terminal-text.ts";
import type { FollowUpResult } from "../../runtime/ask-about.ts";
import type { CliIo } from "../io.ts";
import type { AskFlags } from "./ask.ts";
import type { ResearchFlags } from "./research-flags.ts";

/** Flags `--about` does not take (they shape a deep-search run). */
const NOT_WITH_ABOUT: [keyof AskFlags, string][] = [
  ["strategy", "--strategy"],
  ["sources", "--sources"],
  ["docs", "--docs"],
  ["corpus", "--corpus"],
  ["maxSteps", "--max-steps"],
  ["refineEvery", "--refine-every"],
  ["errorBudget", "--error-budget"],
  ["contextTokens", "--context-tokens"],
];

/** The `--json` line of a follow-up. */
export function askAboutJson(result: FollowUpResult): string {
  const { runId, about, answer, citations, fromRunEvidence, searches, status } = result;
  return terminalJson({ runId, about, answer, citations, fromRunEvidence, searches, status });
}

/** The human-readable follow-up answer. */
export function formatAskAbout(result: FollowUpResult): string {
  const lines = [result.answer ? `Answer: ${terminalLine(result.answer)}` : "No answer."];
  lines.push(
    result.fromRunEvidence
      ? `  from the evidence of run ${result.about} (no search)`
      : `  ${result.searches.length} search${result.searches.length === 1 ? "" : "es"} beyond the evidence of run ${result.about}`,
  );
  for (const s of result.searches) lines.push(`  searched: ${terminalLine(s.query)} (${s.results} results)`);
  if (result.citations.length) {
    lines.push("", "Citations (numbered as in the report):");
    for (const c of result.citations)
      lines.push(`  [${c.number}] ${terminalLine(c.title)} — ${terminalLine(c.locator)}`);
  }
  lines.push("", `run ${result.runId} (dossier runs events ${result.runId})`);
  return `${lines.join("\n")}\n`;
}

/** Runs `dossier ask --about`. Resolves to the exit code. */
export async function runAskAbout(io: CliIo, question: string, flags: AskFlags): Promise<number> {
  for (const [key, flag] of NOT_WITH_ABOUT) {
    if (flags[key] !== undefined)
      throw new DossierError("INPUT_INVALID", `${flag} cannot be used with --about`);
  }
  let maxSearches: number | undefined;
  if (flags.maxSearches !== undefined) {
    maxSearches = Number(flags.maxSearches);
    if (!Number.isInteger(maxSearches) || maxSearches < 0 || maxSearches > 5) {
      throw new DossierError(
        "INPUT_INVALID",
        `--max-searches must be an integer from 0 to 5, got "${flags.maxSearches}"`,
      );
    }
  }
  const [{ createDossierForCli }, { budgetFromFlags }, { askAbout }] = await Promise.all([
    import("../dossier-cli.ts"),
    import("./research-flags.ts"),
    import("../../runtime/ask-about.ts"),
  ]);
  // The follow-up keeps its run's source filter; each filter flag replaces that part.
  const sourceFilter = (await import("./research-flags.ts")).sourceFilterFromFlags(flags);
  const dossier = createDossierForCli(io, flags);
  try {
    const budget = budgetFromFlags(dossier.config.budget, flags as ResearchFlags);
    const result = await askAbout(dossier, question, {
      ...(sourceFilter ? { sourceFilter } : {}),
      about: flags.about ?? "",
      ...(maxSearches === undefined ? {} : { maxSearches }),
      ...(flags.language ? { language: flags.language } : {}),
      ...(flags.date ? { currentDate: flags.date } : {}),
      budget,
    });
    io.out(flags.json ? `${askAboutJson(result)}\n` : formatAskAbout(result));
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
    await dossier.close();
  }
}
