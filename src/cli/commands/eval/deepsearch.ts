/**
 * `dossier eval deepsearch --questions q.jsonl | --xbench 2505|2510 --answers a.jsonl`: pass@1 of
 * short answers judged for equivalence with the reference answers. With `--run` instead of
 * `--answers`, every question is first answered by `dossier ask` (smtl) under a concurrency
 * limit, and the average steps and tool calls per step are printed beside pass@1.
 */

import { resolve } from "node:path";
import type { Command } from "commander";
import { DossierError } from "../../../core/errors.ts";
import { evaluateAnswers } from "../../../eval/deepsearch/answer-judge.ts";
import {
  type DeepsearchQuestion,
  loadAnswers,
  loadQuestions,
} from "../../../eval/deepsearch/question-files.ts";
import { loadXbench, XBENCH_VERSIONS, type XbenchVersion } from "../../../eval/deepsearch/xbench.ts";
import { count, formatTable, pct } from "../../../eval/process/text-table.ts";
import type { CliIo } from "../../io.ts";
import type { GlobalFlags } from "../../settings.ts";
import { type AskRunRecord, askAll, askRunFigures } from "./deepsearch-run.ts";
import { type JudgeFlags, judgeSummaryLine, openJudge, withJudgeOptions, writeDetails } from "./rubric.ts";

const FORMATS = `
File formats (JSON Lines):
  questions  {"id": "1", "question": "...", "answer": "<reference>"}
  answers    {"id": "1", "answer": "..."}   ("response" or "prediction" also accepted; null = unanswered)

--xbench loads xbench-DeepSearch from <benchmarks>/xbench_deepsearch/DeepSearch-<version>.csv and
decrypts it in memory (each field is base64 of the text XOR-ed with the row's canary string).
pass@1 = correct / (questions − judge failures); unanswered questions count as incorrect;
judge failures are counted and reported, never scored.

--run answers the questions with dossier ask (strategy smtl) instead of reading --answers; the
details then hold each run's id, steps, tool calls and stop reason. Tool calls per step are pooled:
all tool calls over all steps.`;

interface DeepsearchFlags extends JudgeFlags {
  questions?: string;
  xbench?: string;
  benchmarks: string;
  answers?: string;
  run?: boolean;
  parallel?: string;
  maxSteps?: string;
  limit?: string;
}

function positive(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new DossierError("INPUT_INVALID", `${flag} must be a positive integer, got "${value}"`);
  return n;
}

/** Answers the questions with dossier ask; returns the answers and the run records. */
async function runQuestions(
  io: CliIo,
  cmd: Command,
  flags: DeepsearchFlags,
  questions: readonly DeepsearchQuestion[],
): Promise<AskRunRecord[]> {
  const { createDossierForCli } = await import("../../dossier-cli.ts");
  const dossier = createDossierForCli(io, cmd.optsWithGlobals<GlobalFlags>());
  const maxSteps = positive("--max-steps", flags.maxSteps);
  try {
    return await askAll(dossier, questions, {
      parallel: positive("--parallel", flags.parallel) ?? 2,
      ...(maxSteps ? { strategyOptions: { maxSteps } } : {}),
      onDone: (r, done) =>
        io.err(
          `dossier: ${done}/${questions.length} ${r.id}: ${r.steps} steps, ${r.toolCalls} tool calls, ${r.stopReason}\n`,
        ),
    });
  } finally {
    await dossier.close();
  }
}

/** Registers `dossier eval deepsearch`. */
export function registerDeepsearchEval(evalCommand: Command, io: CliIo): void {
  withJudgeOptions(evalCommand.command("deepsearch"), "write one JSON line per question")
    .description("deep-search QA: answer-equivalence judge ({rationale, judgement}) and pass@1")
    .option("--questions <file>", "questions with reference answers (JSON Lines)")
    .option("--xbench <version>", `use xbench-DeepSearch ${XBENCH_VERSIONS.join(" or ")} as the questions`)
    .option(
      "--benchmarks <dir>",
      "folder holding xbench_deepsearch/ (default ../shared/benchmarks)",
      "../shared/benchmarks",
    )
    .option("--answers <file>", "the answers to judge (JSON Lines)")
    .option("--run", "answer every question with dossier ask (smtl) first, then judge the answers")
    .option("--parallel <n>", "with --run: questions answered at once (default 2)")
    .option("--max-steps <n>", "with --run: tool-calling steps per question (default 100)")
    .option("--limit <n>", "only the first n questions")
    .addHelpText("after", FORMATS)
    .action(async (flags: DeepsearchFlags, cmd: Command) => {
      if (Boolean(flags.questions) === Boolean(flags.xbench)) {
        throw new DossierError(
          "INPUT_INVALID",
          "give exactly one of --questions <file> and --xbench <version>",
        );
      }
      if (flags.xbench && !(XBENCH_VERSIONS as readonly string[]).includes(flags.xbench)) {
        throw new DossierError(
          "INPUT_INVALID",
          `--xbench must be ${XBENCH_VERSIONS.join(" or ")}, got "${flags.xbench}"`,
        );
      }
      if (Boolean(flags.answers) === Boolean(flags.run)) {
        throw new DossierError("INPUT_INVALID", "give exactly one of --answers <file> and --run");
      }
      const limit = positive("--limit", flags.limit);
      const all = flags.questions
        ? loadQuestions(resolve(io.cwd, flags.questions))
        : loadXbench(resolve(io.cwd, flags.benchmarks), flags.xbench as XbenchVersion);
      const questions = limit ? all.slice(0, limit) : all;
      // The judge is checked before any question is run.
      const judge = openJudge(io, cmd, flags);
      const runs = flags.run ? await runQuestions(io, cmd, flags, questions) : null;
      const answers = runs
        ? new Map(runs.map((r) => [r.id, r.answer]))
        : loadAnswers(resolve(io.cwd, flags.answers!));
      const runById = new Map((runs ?? []).map((r) => [r.id, r]));
      const figures = runs ? askRunFigures(runs) : null;
      const known = new Set(questions.map((q) => q.id));
      const stray = [...answers.keys()].filter((id) => !known.has(id)).length;
      const { results, summary } = await evaluateAnswers(judge.client, questions, answers, {
        concurrency: judge.concurrency,
      });
      // Benchmark questions are kept out of the details file: only ids, answers and verdicts.
      writeDetails(
        io,
        flags.out,
        results.map((r) => ({
          id: r.id,
          answer: r.answer,
          judgement: r.judgement,
          rationale: r.rationale,
          calls: r.calls,
          formatErrors: r.formatErrors,
          ...(flags.xbench ? {} : { question: r.question, reference: r.reference }),
          ...(r.error ? { error: r.error } : {}),
          ...(runById.has(r.id) ? { run: runById.get(r.id) } : {}),
        })),
      );
      if (flags.json) {
        io.out(
          `${JSON.stringify({ ...summary, ...(figures ? { runs: figures } : {}), unmatchedAnswers: stray, judgeModel: judge.model, usage: judge.usage() })}\n`,
        );
        return;
      }
      io.out(
        formatTable(
          ["questions", "answered", "correct", "incorrect", "judge failed", "pass@1"],
          [
            [
              count(summary.questions),
              count(summary.answered),
              count(summary.correct),
              count(summary.incorrect),
              count(summary.judgeFailures),
              pct(summary.passAt1),
            ],
          ],
        ),
      );
      if (figures) {
        const f = (n: number | null, d: number) => (n === null ? "—" : n.toFixed(d));
        io.out(
          `runs: ${figures.answered}/${figures.runs} answered, ${f(figures.avgSteps, 1)} steps per question on average, ${f(figures.toolCallsPerStep, 2)} tool calls per step\n`,
        );
      }
      if (stray) io.out(`note: ${stray} answer(s) name no question and were ignored\n`);
      io.out(judgeSummaryLine(judge.model, summary.judge, judge.usage()));
    });
}
