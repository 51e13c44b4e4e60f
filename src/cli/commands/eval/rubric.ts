/**
 * `dossier eval rubric generate "<query>"` and `dossier eval rubric score --rubric r.json
 * --report a.md | --compare a.md b.md`: query-specific rubrics. Also the pieces every judge-based
 * eval command shares: the judge options, opening the judge, reading inputs and writing JSONL.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { DossierError } from "../../../core/errors.ts";
import type { UsageTotals } from "../../../core/usage.ts";
import { count, fmt, formatTable } from "../../../eval/process/text-table.ts";
import { writeJsonl } from "../../../eval/race/jsonl.ts";
import { createJudgeClient, type JudgeClient, type JudgeCounts } from "../../../eval/rubric/index.ts";
import { generateRubric } from "../../../eval/rubric/rubric-generate.ts";
import { compareScores, type ReportScore, scoreReports } from "../../../eval/rubric/rubric-judge.ts";
import { repairRubricItems } from "../../../eval/rubric/rubric-repair.ts";
import type { QueryRubric } from "../../../eval/rubric/rubric-types.ts";
import type { CliIo } from "../../io.ts";
import { type GlobalFlags, loadCliConfig } from "../../settings.ts";

/** Flags of judge-based eval commands. */
export interface JudgeFlags {
  judge?: string;
  concurrency?: string;
  out?: string;
  json?: boolean;
}

/** Adds --judge, --concurrency, --out and --json to a command. */
export function withJudgeOptions(
  command: Command,
  outHelp = "write per-item details as JSON Lines",
): Command {
  return command
    .option("--judge <provider:model>", "judge model (default: DOSSIER_MODEL_JUDGE, else DOSSIER_MODEL)")
    .option("--concurrency <n>", "judge calls in flight (default: the configured concurrency)")
    .option("--out <file>", outHelp)
    .option("--json", "print one JSON summary line instead of tables");
}

/** Opens the judge for a command; returns it with the concurrency to use. */
export function openJudge(io: CliIo, cmd: Command, flags: JudgeFlags): JudgeClient & { concurrency: number } {
  const loaded = loadCliConfig(io, cmd.optsWithGlobals<GlobalFlags>());
  const judge = createJudgeClient({ config: loaded.config, ...(flags.judge ? { judge: flags.judge } : {}) });
  return { ...judge, concurrency: parseConcurrency(flags.concurrency) ?? loaded.config.concurrency };
}

/** Parses --concurrency; throws INPUT_INVALID on a non-positive or non-integer value. */
export function parseConcurrency(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 256)
    throw new DossierError("INPUT_INVALID", `--concurrency must be an integer 1-256, got "${value}"`);
  return n;
}

/** Reads a text file relative to the working directory; INPUT_INVALID when it cannot. */
export function readInput(io: CliIo, path: string): string {
  try {
    return readFileSync(resolve(io.cwd, path), "utf8");
  } catch (error) {
    throw new DossierError("INPUT_INVALID", `cannot read ${path}: ${(error as Error).message}`, {
      details: { path },
      cause: error,
    });
  }
}

/** Writes JSONL details to `path` (relative to the working directory) when given. */
export function writeDetails(io: CliIo, path: string | undefined, records: readonly unknown[]): void {
  if (path) writeJsonl(resolve(io.cwd, path), records);
}

/** One line on the judge's calls, failures and usage. */
export function judgeSummaryLine(model: string, counts: JudgeCounts, usage: UsageTotals): string {
  const tokens =
    usage.inputTokens === null || usage.outputTokens === null
      ? "unknown"
      : String(usage.inputTokens + usage.outputTokens);
  const cost = usage.costUsd === null ? "unknown" : `$${usage.costUsd.toFixed(4)}`;
  return `judge ${model}: ${counts.total} judgements, ${counts.failed} failed, ${counts.calls} calls, ${counts.formatErrors} unparsable answers re-asked; tokens ${tokens}, cost ${cost}\n`;
}

const rubricFileSchema = z.object({
  query: z.string().optional(),
  items: z.array(
    z.object({
      title: z.string().default(""),
      description: z.string().default(""),
      weight: z.coerce.number(),
      category: z.string().optional(),
    }),
  ),
});

/**
 * Loads a rubric file: `{query, items}` or a bare item list (then `--query` is required). Items
 * go through the same repair as generated rubrics; what repair cannot fix is returned as warnings.
 */
export function loadRubricFile(
  io: CliIo,
  path: string,
  query: string | undefined,
): { rubric: QueryRubric; repairs: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(readInput(io, path));
  } catch (error) {
    if (error instanceof DossierError) throw error;
    throw new DossierError("INPUT_INVALID", `${path} is not JSON: ${(error as Error).message}`);
  }
  const parsed = rubricFileSchema.safeParse(Array.isArray(value) ? { items: value } : value);
  if (!parsed.success) {
    throw new DossierError(
      "INPUT_INVALID",
      `${path}: not a rubric (${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, "; ")})`,
    );
  }
  const rubricQuery = query ?? parsed.data.query;
  if (!rubricQuery) throw new DossierError("INPUT_INVALID", `${path} has no query; give --query`);
  const repaired = repairRubricItems(parsed.data.items);
  if (repaired.items.length === 0)
    throw new DossierError("INPUT_INVALID", `${path}: the rubric has no usable item`);
  const rest = Array.isArray(value) ? {} : (value as Record<string, unknown>);
  const rubric: QueryRubric = {
    query: rubricQuery,
    items: repaired.items,
    ...(typeof rest.model === "string" ? { model: rest.model } : {}),
    ...(typeof rest.generatedAt === "string" ? { generatedAt: rest.generatedAt } : {}),
  };
  return { rubric, repairs: [...repaired.repairs, ...repaired.problems.map((p) => `warning: ${p}`)] };
}

function scoreTables(rubric: QueryRubric, scores: readonly ReportScore[]): string {
  const summary = formatTable(
    ["report", "score", "min", "max", "rated", "failed"],
    scores.map((s) => [
      s.name,
      fmt(s.score.score),
      fmt(s.score.min),
      fmt(s.score.max),
      `${s.score.rated}/${rubric.items.length}`,
      count(s.score.failed),
    ]),
  );
  const items = formatTable(
    ["#", "category", "weight", "title", ...scores.map((s) => s.name)],
    rubric.items.map((item, k) => [
      String(k + 1),
      item.category,
      String(item.weight),
      item.title,
      ...scores.map((s) => count(s.items[k]!.rating)),
    ]),
  );
  return `${summary}\n${items}`;
}

function registerGenerate(rubric: Command, io: CliIo): void {
  withJudgeOptions(rubric.command("generate <query>"), "write the rubric JSON (the input of `rubric score`)")
    .description(
      "generate a query-specific rubric: 7-20 Key / Important / Optional / Error items with weights",
    )
    .action(async (query: string, flags: JudgeFlags, cmd: Command) => {
      const judge = openJudge(io, cmd, flags);
      const generated = await generateRubric(judge.client, query, { role: "judge" });
      if (flags.out)
        writeFileSync(resolve(io.cwd, flags.out), `${JSON.stringify(generated.rubric, null, 2)}\n`);
      if (flags.json) {
        io.out(`${JSON.stringify({ ...generated, usage: judge.usage() })}\n`);
        return;
      }
      if (!io.isTty && !flags.out) {
        // Piped (`… > rubric.json`): stdout carries the rubric JSON alone; the rest goes to stderr.
        for (const repair of generated.repairs) io.err(`repaired: ${repair}\n`);
        io.err(
          judgeSummaryLine(
            judge.model,
            { total: 1, ok: 1, failed: 0, calls: generated.calls, formatErrors: generated.formatErrors },
            judge.usage(),
          ),
        );
        io.out(`${JSON.stringify(generated.rubric, null, 2)}\n`);
        return;
      }
      io.out(
        formatTable(
          ["#", "category", "weight", "title"],
          generated.rubric.items.map((i, k) => [String(k + 1), i.category, String(i.weight), i.title]),
        ),
      );
      for (const repair of generated.repairs) io.out(`repaired: ${repair}\n`);
      io.out(
        judgeSummaryLine(
          judge.model,
          { total: 1, ok: 1, failed: 0, calls: generated.calls, formatErrors: generated.formatErrors },
          judge.usage(),
        ),
      );
      if (!flags.out) io.out(`${JSON.stringify(generated.rubric, null, 2)}\n`);
    });
}

function registerScore(rubric: Command, io: CliIo): void {
  withJudgeOptions(rubric.command("score"))
    .description(
      "score a report with a rubric (one judge call per item, 1-10). Score = Σ w·v / Σw over rated items (the rubrics paper's Eq. 2; --denominator abs-sum divides by Σ|w|), v = (rating − 1) / 9; an error item's rating is how much the report commits the error; failed judge calls are counted and left out",
    )
    .requiredOption("--rubric <file>", "rubric JSON ({query, items}) from `rubric generate`")
    .option("--report <file>", "the report (Markdown) to score")
    .option(
      "--compare <files...>",
      "compare with the same rubric: --report a.md --compare b.md, or --compare a.md b.md",
    )
    .option("--query <text>", "the query, when the rubric file is a bare item list")
    .option("--denominator <which>", "sum (Σw, default) or abs-sum (Σ|w|)", "sum")
    .action(
      async (
        flags: JudgeFlags & {
          rubric: string;
          report?: string;
          compare?: string[];
          query?: string;
          denominator: string;
        },
        cmd: Command,
      ) => {
        // --report a --compare b, --compare a b, or --report a alone.
        const files = [...(flags.report ? [flags.report] : []), ...(flags.compare ?? [])];
        if (files.length === 0 || files.length > 2 || (flags.compare && files.length !== 2)) {
          throw new DossierError(
            "INPUT_INVALID",
            "give --report <file>, or two reports to compare: --report <a> --compare <b>, or --compare <a> <b>",
          );
        }
        if (flags.denominator !== "sum" && flags.denominator !== "abs-sum")
          throw new DossierError(
            "INPUT_INVALID",
            `--denominator takes sum or abs-sum, got "${flags.denominator}"`,
          );
        const { rubric, repairs } = loadRubricFile(io, flags.rubric, flags.query);
        const reports = files.map((f) => ({ name: basename(f), text: readInput(io, f) }));
        const judge = openJudge(io, cmd, flags);
        const scores = await scoreReports(judge.client, rubric, reports, {
          concurrency: judge.concurrency,
          denominator: flags.denominator as "sum" | "abs-sum",
        });
        const counts = scores.reduce<JudgeCounts>(
          (a, s) => ({
            total: a.total + s.judge.total,
            ok: a.ok + s.judge.ok,
            failed: a.failed + s.judge.failed,
            calls: a.calls + s.judge.calls,
            formatErrors: a.formatErrors + s.judge.formatErrors,
          }),
          { total: 0, ok: 0, failed: 0, calls: 0, formatErrors: 0 },
        );
        const better = scores.length === 2 ? compareScores(scores[0]!.score, scores[1]!.score) : undefined;
        writeDetails(io, flags.out, [
          ...scores.flatMap((s) =>
            s.items.map((i) => ({
              kind: "item",
              report: s.name,
              index: i.index + 1,
              title: i.item.title,
              category: i.item.category,
              weight: i.item.weight,
              rating: i.rating,
              value: i.value,
              reason: i.reason,
              calls: i.calls,
              formatErrors: i.formatErrors,
              ...(i.error ? { error: i.error } : {}),
            })),
          ),
          ...scores.map((s) => ({ kind: "report", report: s.name, ...s.score, judge: s.judge })),
        ]);
        const winner = better === "a" ? scores[0]!.name : better === "b" ? scores[1]!.name : better;
        if (flags.json) {
          io.out(
            `${JSON.stringify({ judge: judge.model, reports: scores.map((s) => ({ name: s.name, ...s.score })), ...(better === undefined ? {} : { better: winner }), counts, usage: judge.usage() })}\n`,
          );
          return;
        }
        for (const repair of repairs) io.out(`rubric: ${repair}\n`);
        io.out(`Rubric score (${rubric.items.length} items)\n\n${scoreTables(rubric, scores)}\n`);
        if (better !== undefined) io.out(`better: ${winner ?? "unknown (a score is missing)"}\n`);
        io.out(judgeSummaryLine(judge.model, counts, judge.usage()));
      },
    );
}

/** Registers `dossier eval rubric generate|score`. */
export function registerRubricEval(evalCommand: Command, io: CliIo): void {
  const rubric = evalCommand
    .command("rubric")
    .description("query-specific rubrics: generate one, score reports with it");
  registerGenerate(rubric, io);
  registerScore(rubric, io);
}
