/**
 * `dossier eval race …`: RACE (DeepResearch Bench). Three forms on one command — the full
 * protocol, a recompute from stored judgments, a summary of per-task results — and
 * `dossier eval race criteria` to generate criteria for new queries. Each prints the overall
 * score and the four dimensions (4 decimals) with the task counts, or one JSON object with
 * `--json`; `--out` writes the per-task JSONL files.
 */

import { join, resolve } from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { DossierError } from "../../../core/errors.ts";
import { generateRaceCriteria } from "../../../eval/race/criteria-gen.ts";
import { readJsonl, writeJsonl } from "../../../eval/race/jsonl.ts";
import { writeRaceRunFiles, writeRaceSummaryFiles } from "../../../eval/race/output.ts";
import { recomputeFromJudgments, sortRowsById } from "../../../eval/race/recompute.ts";
import {
  raceArticleSchema,
  raceCriteriaSchema,
  raceJudgmentLineSchema,
  raceQuerySchema,
  raceResultRowSchema,
} from "../../../eval/race/records.ts";
import { runRace } from "../../../eval/race/runner.ts";
import {
  formatRaceTable,
  type RaceSummary,
  raceSummaryJson,
  summarizeRaceResults,
} from "../../../eval/race/summary.ts";
import { LlmClient } from "../../../llm/client.ts";
import { loadConfig } from "../../../runtime/config-load.ts";
import { registryFromConfig } from "../../../runtime/models.ts";
import type { CliIo } from "../../io.ts";
import type { GlobalFlags } from "../../settings.ts";

/** A judge client made from the configuration, `--judge` overriding the `judge` role. */
export interface JudgeSetup {
  llm: LlmClient;
  /** `provider:model` of the judge. */
  model: string;
  /** Calls in flight at once (`--concurrency`, else the configuration's). */
  concurrency: number;
}

/**
 * Builds the judge: `--judge provider:model`, else `DOSSIER_MODEL_JUDGE` / the config's
 * `models.judge`, else the default model. Fails with MODEL_NOT_CONFIGURED when none is set.
 */
export function createJudgeSetup(
  io: CliIo,
  cmd: Command,
  options: { judge?: string; concurrency?: number },
): JudgeSetup {
  const flags = cmd.optsWithGlobals<GlobalFlags>();
  const loaded = loadConfig({
    env: io.env,
    cwd: io.cwd,
    configFile: flags.config,
    flags: {
      home: { label: "--home", raw: flags.home },
      model: { label: "--model", raw: flags.model },
      "models.judge": { label: "--judge", raw: options.judge },
    },
  });
  const registry = registryFromConfig(loaded.config);
  const model = registry.forRole("judge").name;
  return {
    llm: new LlmClient({ registry }),
    model,
    concurrency: options.concurrency ?? loaded.config.concurrency,
  };
}

/** A copy of `opts` whose path options are resolved against the command's working directory. */
export function withAbsolutePaths<T extends object>(io: CliIo, opts: T, keys: ReadonlyArray<keyof T>): T {
  const out = { ...opts };
  for (const key of keys) {
    const value = out[key];
    if (typeof value === "string") out[key] = resolve(io.cwd, value) as T[keyof T];
    else if (Array.isArray(value)) out[key] = value.map((v) => resolve(io.cwd, String(v))) as T[keyof T];
  }
  return out;
}

/** Commander parser of a positive integer option. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("expected a positive integer");
  return n;
}

interface RaceFlags {
  criteria?: string;
  queries?: string;
  target?: string;
  reference?: string;
  judgments?: string;
  summarize?: string;
  judge?: string;
  out?: string;
  skipCleaning?: boolean;
  concurrency?: number;
  samples: number;
  json?: boolean;
}

function usage(message: string): DossierError {
  return new DossierError("INPUT_INVALID", `${message} (run dossier eval race --help for the forms)`);
}

function printSummary(io: CliIo, summary: RaceSummary, json: boolean | undefined, extra = ""): void {
  if (json) io.out(`${JSON.stringify(raceSummaryJson(summary))}\n`);
  else io.out(formatRaceTable(summary) + extra);
}

const PATH_OPTIONS = ["criteria", "queries", "target", "reference", "judgments", "summarize", "out"] as const;

async function raceAction(io: CliIo, flags: RaceFlags, cmd: Command): Promise<void> {
  const opts = withAbsolutePaths(io, flags, PATH_OPTIONS);
  if (opts.summarize) {
    if (opts.criteria || opts.target || opts.reference || opts.judgments)
      throw usage("--summarize takes no other input file");
    const rows = readJsonl(opts.summarize, raceResultRowSchema);
    const summary = summarizeRaceResults(rows);
    if (opts.out) writeRaceSummaryFiles(opts.out, sortRowsById(rows), summary);
    printSummary(io, summary, opts.json);
    return;
  }
  if (!opts.criteria) throw usage("--criteria is required (or use --summarize)");
  const criteria = readJsonl(opts.criteria, raceCriteriaSchema);

  if (opts.judgments) {
    if (opts.target || opts.reference) throw usage("--judgments recomputes without --target/--reference");
    const lines = readJsonl(opts.judgments, raceJudgmentLineSchema);
    const result = recomputeFromJudgments(criteria, lines);
    if (opts.out) {
      writeRaceSummaryFiles(opts.out, result.rows, result.summary);
      writeJsonl(join(opts.out, "details.jsonl"), result.details);
    }
    for (const row of result.rows)
      if (row.error) io.err(`race: task ${row.id ?? "?"} failed: ${row.error}\n`);
    printSummary(io, result.summary, opts.json);
    return;
  }

  if (!opts.target || !opts.reference) throw usage("the full protocol needs --target and --reference");
  const targets = readJsonl(opts.target, raceArticleSchema);
  const references = readJsonl(opts.reference, raceArticleSchema);
  const queries = opts.queries ? readJsonl(opts.queries, raceQuerySchema) : undefined;
  const judge = createJudgeSetup(io, cmd, opts);
  const result = await runRace({
    llm: judge.llm,
    criteria,
    targets,
    references,
    queries,
    skipCleaning: opts.skipCleaning,
    concurrency: judge.concurrency,
    onTask: (task, done, total) => {
      if (task.row.error) io.err(`race: task ${task.id ?? "?"} failed (${task.stage}): ${task.row.error}\n`);
      else if (io.isTty) io.err(`race: ${done}/${total} tasks done\n`);
    },
  });
  if (opts.out) {
    const written = writeRaceRunFiles(opts.out, result, !opts.skipCleaning);
    io.err(`race: wrote ${written.join(", ")}\n`);
  }
  printSummary(
    io,
    result.summary,
    opts.json,
    `  Judge: ${judge.model}; unparsable answers: ${result.formatErrors}\n`,
  );
}

async function criteriaAction(io: CliIo, flags: RaceFlags, cmd: Command): Promise<void> {
  const opts = withAbsolutePaths(io, flags, PATH_OPTIONS);
  if (!opts.queries || !opts.out) throw usage("criteria mode needs --queries and --out <file>");
  if (opts.criteria || opts.target || opts.reference || opts.judgments || opts.summarize)
    throw usage("criteria mode takes only --queries, --out, --samples, --judge, --concurrency, --json");
  const out = opts.out;
  const queries = readJsonl(opts.queries, raceQuerySchema);
  const judge = createJudgeSetup(io, cmd, opts);
  const outcomes = await generateRaceCriteria({
    llm: judge.llm,
    queries,
    samples: opts.samples,
    concurrency: judge.concurrency,
    onTask: (o) => {
      if (!o.ok) io.err(`race criteria: task ${o.query.id} failed: ${o.error}\n`);
    },
  });
  const ok = outcomes.flatMap((o) => (o.ok ? [o.criteria] : []));
  writeJsonl(out, sortRowsById(ok));
  const failed = outcomes.length - ok.length;
  const formatErrors = outcomes.reduce((n, o) => n + (o.ok ? o.formatErrors : 0), 0);
  if (opts.json) {
    io.out(`${JSON.stringify({ tasks: outcomes.length, generated: ok.length, failed, out })}\n`);
    return;
  }
  io.out(
    [
      "RACE criteria",
      `  Tasks:                ${outcomes.length}`,
      `  Generated:            ${ok.length}`,
      `  Failed:               ${failed}`,
      `  Unparsable answers:   ${formatErrors}`,
      `  Judge:                ${judge.model}`,
      `  Written to:           ${out}`,
      "",
    ].join("\n"),
  );
}

const FORMS = `
Forms:
  dossier eval race --criteria C --queries Q --target T --reference R [--judge m] [--out dir]
      the full protocol: strip citations from each target (unless --skip-cleaning), one judge
      call per task comparing target (article_1) with reference (article_2), exact scoring
  dossier eval race --criteria C --judgments J
      recompute every score from stored judge outputs (JSONL {"id","prompt","judgment"}; the
      full protocol writes judgments.jsonl into --out)
  dossier eval race --summarize raw_results.jsonl
      means of per-task results in the benchmark's raw_results.jsonl format
  dossier eval race criteria --queries Q --out criteria.jsonl [--samples 5] [--judge m]
      generate criteria for new queries: dimension weights averaged over --samples calls,
      then one call per dimension for its criteria

Files are DeepResearch Bench JSONL: criteria {"id","prompt","dimension_weight","criterions"},
queries {"id","prompt","language"}, articles {"id","prompt","article"}; tasks are joined on the
exact prompt string. Failed tasks are dropped from the means and counted.`;

/** Registers the `race` evaluation subcommand(s) under `dossier eval`. */
export function registerRaceEval(evalCommand: Command, io: CliIo): void {
  evalCommand
    .command("race")
    .description("RACE (DeepResearch Bench): score reports against reference reports with weighted criteria")
    .argument("[mode]", '"criteria" to generate criteria for new queries (with --queries and --out)')
    .option("--criteria <file>", "criteria.jsonl")
    .option("--queries <file>", "query.jsonl (task ids and languages)")
    .option("--target <file>", "target articles JSONL (the reports to score)")
    .option("--reference <file>", "reference articles JSONL")
    .option("--judgments <file>", "recompute from stored judge outputs")
    .option("--summarize <file>", "aggregate a raw_results.jsonl")
    .option("--judge <provider:model>", "judge model (default: DOSSIER_MODEL_JUDGE, else DOSSIER_MODEL)")
    .option(
      "--out <path>",
      "directory for raw_results.jsonl, race_result.txt, judgments.jsonl, details (criteria mode: the file to write)",
    )
    .option("--skip-cleaning", "judge targets as given (citations already stripped)")
    .option("--concurrency <n>", "tasks in flight at once (default DOSSIER_CONCURRENCY or 16)", positiveInt)
    .option("--samples <n>", "criteria mode: weight samples averaged per task", positiveInt, 5)
    .option("--json", "print one JSON object")
    .addHelpText("after", FORMS)
    .action((mode: string | undefined, opts: RaceFlags, cmd: Command) => {
      if (mode === undefined) return raceAction(io, opts, cmd);
      if (mode !== "criteria") throw usage(`unknown mode "${mode}"`);
      return criteriaAction(io, opts, cmd);
    });
}
