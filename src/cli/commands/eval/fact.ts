/**
 * `dossier eval fact`: FACT (DeepResearch Bench) — how many of a report's citations are
 * backed by the pages they cite. Either the full pipeline over reports (extract triples,
 * dedupe per URL, fetch each URL through the tool layer, judge), or a recompute of the
 * figures from a stored validations file. Prints a summary table (or one JSON object with
 * `--json`); `--out` writes validated.jsonl, fact_result.txt and summary.json.
 */

import type { Command } from "commander";
import { DossierError } from "../../../core/errors.ts";
import { factValidatedSchema } from "../../../eval/fact/records.ts";
import { loadFactReports, writeFactFiles } from "../../../eval/fact/report-input.ts";
import { type FetchText, runFact } from "../../../eval/fact/runner.ts";
import { type FactStats, factStats, factStatsJson, formatFactTable } from "../../../eval/fact/stats.ts";
import { readJsonl } from "../../../eval/race/jsonl.ts";
import type { ToolGateway } from "../../../tools/gateway.ts";
import type { ToolResult } from "../../../tools/types.ts";
import type { CliIo } from "../../io.ts";
import { openCliServices } from "../../services.ts";
import type { GlobalFlags } from "../../settings.ts";
import { createJudgeSetup, positiveInt, withAbsolutePaths } from "./race.ts";

interface FactFlags {
  reports?: string[];
  validations?: string;
  judge?: string;
  out?: string;
  concurrency?: number;
  json?: boolean;
}

type FetchPageTool = (
  gateway: ToolGateway,
  url: string,
  options?: Record<string, unknown>,
) => Promise<ToolResult<{ text: string; title?: string }>>;

/**
 * The page reader of the tool layer, loaded when the command runs (the fetch module is
 * optional at load time). Fails with a clear error when it is missing.
 */
async function loadFetchText(gateway: ToolGateway, allowPrivateNetwork: boolean): Promise<FetchText> {
  const specifier = new URL("../../../tools/fetch/index.ts", import.meta.url).href;
  let mod: { fetchPageTool?: FetchPageTool };
  try {
    mod = (await import(specifier)) as { fetchPageTool?: FetchPageTool };
  } catch (error) {
    throw new DossierError(
      "TOOL_ERROR",
      `the page fetcher (src/tools/fetch) is not available, so FACT cannot read cited pages: ${(error as Error).message}. Use --validations to recompute from stored judgements.`,
      { cause: error },
    );
  }
  const fetchPageTool = mod.fetchPageTool;
  if (typeof fetchPageTool !== "function") {
    throw new DossierError(
      "TOOL_ERROR",
      "src/tools/fetch does not export fetchPageTool; FACT cannot read pages",
    );
  }
  return (url) => fetchPageTool(gateway, url, { allowPrivateNetwork });
}

function print(io: CliIo, stats: FactStats, json: boolean | undefined, extra = ""): void {
  if (json) io.out(`${JSON.stringify(factStatsJson(stats))}\n`);
  else io.out(formatFactTable(stats) + extra);
}

async function factAction(io: CliIo, flags: FactFlags, cmd: Command): Promise<void> {
  const opts = withAbsolutePaths(io, flags, ["reports", "validations", "out"]);
  if (opts.validations) {
    if (opts.reports?.length)
      throw new DossierError("INPUT_INVALID", "give either --reports or --validations");
    const records = readJsonl(opts.validations, factValidatedSchema);
    const stats = factStats(records);
    if (opts.out) writeFactFiles(opts.out, records, stats);
    print(io, stats, opts.json);
    return;
  }
  if (!opts.reports?.length)
    throw new DossierError(
      "INPUT_INVALID",
      "--reports or --validations is required (see dossier eval fact --help)",
    );
  const reports = loadFactReports(opts.reports);
  const judge = createJudgeSetup(io, cmd, opts);
  const services = openCliServices(io, cmd.optsWithGlobals<GlobalFlags>());
  try {
    const fetchText = await loadFetchText(services.gateway, services.loaded.config.allowPrivateNetwork);
    const result = await runFact({
      llm: judge.llm,
      reports,
      fetchText,
      concurrency: judge.concurrency,
      onGroup: (done, total, error) => {
        if (error) io.err(`fact: ${error}\n`);
        else if (io.isTty) io.err(`fact: ${done}/${total} cited URLs judged\n`);
      },
    });
    if (opts.out)
      io.err(`fact: wrote ${writeFactFiles(opts.out, result.records, result.stats).join(", ")}\n`);
    const unresolved = result.extractions.reduce((n, e) => n + e.unresolved.length, 0);
    print(
      io,
      result.stats,
      opts.json,
      `  Judge: ${judge.model}; unparsable answers: ${result.formatErrors}; citation numbers without a URL: ${unresolved}\n`,
    );
  } finally {
    services.close();
  }
}

const INPUT_HELP = `
Input:
  --reports takes JSONL files, one report per line {"id", "prompt"?, "article", "language"?}
  (the DeepResearch Bench raw-data format), and Markdown or text files (one report each; its id
  is the file name). In-text citations are numbered markers ([1], [1, 2], [1][2], [^1]) that
  resolve through the report's reference list — "[1] https://… - Title", "1. Title. <https://…>"
  (Dossier's References), "1. [Title](https://…)", "[1]: https://…" — or inline links.
  --validations takes the benchmark's validated.jsonl (written by --out) and recomputes the
  figures without calling a model or fetching a page.

Figures: effective citations = supported pairs / reports with at least one citation;
citation accuracy = supported / (supported + unsupported), pooled; unknown verdicts are
ignored; URLs whose page could not be fetched or whose judge failed are counted, not scored.`;

/** Registers the `fact` evaluation subcommand(s) under `dossier eval`. */
export function registerFactEval(evalCommand: Command, io: CliIo): void {
  evalCommand
    .command("fact")
    .description("FACT (DeepResearch Bench): check that cited pages support the statements citing them")
    .option("--reports <files...>", "reports: JSONL and/or Markdown files")
    .option("--validations <file>", "recompute from a stored validated.jsonl")
    .option("--judge <provider:model>", "judge model (default: DOSSIER_MODEL_JUDGE, else DOSSIER_MODEL)")
    .option("--out <dir>", "write validated.jsonl, fact_result.txt and summary.json")
    .option(
      "--concurrency <n>",
      "judge calls in flight at once (default DOSSIER_CONCURRENCY or 4)",
      positiveInt,
    )
    .option("--json", "print one JSON object")
    .addHelpText("after", INPUT_HELP)
    .action((opts: FactFlags, cmd: Command) => factAction(io, opts, cmd));
}
