/**
 * `dossier refresh <run>`: a new version of a finished run's report. Cited pages are fetched
 * again (conditionally where the server supports it) and the searches run again; only sections
 * whose evidence changed are rewritten, and a diff is written beside the report. `--estimate`
 * prints what it would cost against the first run, running nothing. `--json` prints one line:
 * `{ runId, refreshOf, version, status, sectionsChanged, message, paths, diff: { md, json } }`.
 * The refresh keeps the source filter of the run it refreshes; `--domains`, `--exclude-domains`
 * and `--since` each replace that part of it (`--domains ''` lifts the allow list).
 */

import type { Command } from "commander";
import { DossierError } from "../../core/errors.ts";
import { isReportFormat, type ReportFormat, reportFormatList } from "../../core/report-formats.ts";
import { terminalJson, terminalLine } from "../../core/terminal-text.ts";
import type { RefreshResult } from "../../runtime/refresh.ts";
import { CliExit } from "../errors.ts";
import type { CliIo } from "../io.ts";
import type { GlobalFlags } from "../settings.ts";
import { commandEntry } from "./catalog.ts";
import type { ResearchFlags } from "./research-flags.ts";

/** Flags of `dossier refresh`. */
export interface RefreshFlags extends GlobalFlags {
  maxTokens?: string;
  maxToolCalls?: string;
  maxMinutes?: string;
  maxCost?: string;
  maxSearches?: string;
  format?: string;
  out?: string;
  date?: string;
  estimate?: boolean;
  json?: boolean;
  /** Allowed domains, comma-separated (replaces the refreshed run's list). */
  domains?: string;
  /** Excluded domains, comma-separated (replaces the refreshed run's list). */
  excludeDomains?: string;
  /** Only sources published since this day (replaces the refreshed run's date). */
  since?: string;
}

/** The `--json` line of a refresh. */
export function refreshJson(result: RefreshResult): string {
  const { runId, refreshOf, version, status, sectionsChanged, message, paths, diffPaths } = result;
  return terminalJson({
    runId,
    refreshOf,
    version,
    status,
    sectionsChanged,
    message,
    paths,
    diff: { md: diffPaths[0] ?? null, json: diffPaths[1] ?? null },
  });
}

/** The human-readable outcome of a refresh. */
export function formatRefresh(result: RefreshResult): string {
  const lines = [terminalLine(result.message)];
  for (const title of result.sectionsChanged) lines.push(`  rewritten: ${terminalLine(title)}`);
  if (result.paths.length) lines.push(`report  ${result.paths.join(", ")}`);
  if (result.diffPaths.length) lines.push(`diff    ${result.diffPaths.join(", ")}`);
  lines.push(
    `run ${result.runId}, version ${result.version} of ${result.refreshOf} (dossier runs show ${result.runId})`,
  );
  return `${lines.join("\n")}\n`;
}

function formatsOf(flag: string | undefined): ReportFormat[] | undefined {
  if (flag === undefined) return undefined;
  const formats = flag
    .split(",")
    .map((f) => f.trim().toLowerCase())
    .filter(Boolean);
  for (const f of formats) {
    if (!isReportFormat(f)) {
      throw new DossierError(
        "INPUT_INVALID",
        `--format: unknown format "${f}" (expected ${reportFormatList()})`,
      );
    }
  }
  return formats as ReportFormat[];
}

/** Runs `dossier refresh`. Resolves to the exit code. */
export async function runRefresh(io: CliIo, runId: string, flags: RefreshFlags): Promise<number> {
  let maxSearches: number | undefined;
  if (flags.maxSearches !== undefined) {
    maxSearches = Number(flags.maxSearches);
    if (!/^\d+$/.test(flags.maxSearches) || maxSearches > 20) {
      throw new DossierError(
        "INPUT_INVALID",
        `--max-searches must be an integer from 0 to 20, got "${flags.maxSearches}"`,
      );
    }
  }
  if (flags.out === "-") {
    throw new DossierError(
      "INPUT_INVALID",
      "--out -: a refresh writes its report and diff to files; give a path",
    );
  }
  const formats = formatsOf(flags.format);
  const [{ createDossierForCli }, { budgetFromFlags, sourceFilterFromFlags }] = await Promise.all([
    import("../dossier-cli.ts"),
    import("./research-flags.ts"),
  ]);
  // Checked before anything is opened: INPUT_INVALID naming the flag.
  const sourceFilter = sourceFilterFromFlags(flags);
  const dossier = createDossierForCli(io, flags);
  try {
    const budget = budgetFromFlags(dossier.config.budget, flags as ResearchFlags);
    if (flags.estimate) {
      const { estimateRefresh, formatRefreshEstimate } = await import("../../runtime/refresh-estimate.ts");
      const estimate = await estimateRefresh(dossier, runId, {
        budget,
        ...(maxSearches === undefined ? {} : { maxSearches }),
      });
      io.out(flags.json ? `${terminalJson(estimate)}\n` : formatRefreshEstimate(estimate));
      return 0;
    }
    const result = await dossier.refresh(runId, {
      budget,
      ...(maxSearches === undefined ? {} : { maxSearches }),
      ...(formats ? { formats } : {}),
      ...(flags.out ? { out: flags.out } : {}),
      ...(flags.date ? { currentDate: flags.date } : {}),
      ...(sourceFilter ? { sourceFilter } : {}),
    });
    io.out(flags.json ? `${refreshJson(result)}\n` : formatRefresh(result));
    if (result.record.status === "cancelled") return 130;
    if (result.record.status === "failed") {
      if (!flags.json)
        io.err(
          `dossier: error [${result.record.error?.code ?? "INTERNAL"}]: ${terminalLine(result.record.error?.message ?? result.record.stopReason ?? result.record.status)}\n`,
        );
      return 1;
    }
    return 0;
  } finally {
    await dossier.close();
  }
}

/** Registers `dossier refresh`. */
export function registerRefreshCommand(program: Command, io: CliIo): void {
  program
    .command("refresh <run>")
    .description(commandEntry("refresh").description)
    .option("--max-tokens <n>", "token budget (input + output)")
    .option("--max-tool-calls <n>", "tool call budget")
    .option("--max-minutes <n>", "wall time budget")
    .option("--max-cost <usd>", "cost budget in USD")
    .option("--max-searches <n>", "the run's searches run again at most (0-20, default 8)")
    .option("--format <list>", `report formats, comma-separated (${reportFormatList()}; default: the run's)`)
    .option("--out <path>", "report file base or directory (default <home>/reports/<runId>)")
    .option("--date <YYYY-MM-DD>", "the current date the refresh reasons with (default today)")
    .option(
      "--domains <list>",
      "only web sources on these domains (comma list; replaces the refreshed run's allow list, '' lifts it)",
    )
    .option(
      "--exclude-domains <list>",
      "never web sources on these domains (comma list; replaces the refreshed run's deny list, '' lifts it)",
    )
    .option("--since <YYYY-MM-DD>", "drop web results known to be older (replaces the refreshed run's date)")
    .option("--estimate", "print the expected calls and cost against the first run's, run nothing")
    .option("--json", "print one JSON line: version, sectionsChanged, report and diff paths")
    .action(async (run: string, _opts: RefreshFlags, cmd: Command) => {
      const code = await runRefresh(io, run, cmd.optsWithGlobals<RefreshFlags>());
      if (code !== 0) throw new CliExit(code);
    });
}
