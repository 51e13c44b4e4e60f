/**
 * `dossier eval deepsearch --questions q.jsonl | --xbench 2505|2510 --answers a.jsonl`: pass@1 of
 * short answers judged for equivalence with the reference answers.
 */

import { resolve } from "node:path";
import type { Command } from "commander";
import { DossierError } from "../../../core/errors.ts";
import { evaluateAnswers } from "../../../eval/deepsearch/answer-judge.ts";
import { loadAnswers, loadQuestions } from "../../../eval/deepsearch/question-files.ts";
import { loadXbench, XBENCH_VERSIONS, type XbenchVersion } from "../../../eval/deepsearch/xbench.ts";
import { count, formatTable, pct } from "../../../eval/process/text-table.ts";
import type { CliIo } from "../../io.ts";
import { type JudgeFlags, judgeSummaryLine, openJudge, withJudgeOptions, writeDetails } from "./rubric.ts";

const FORMATS = `
File formats (JSON Lines):
  questions  {"id": "1", "question": "...", "answer": "<reference>"}
  answers    {"id": "1", "answer": "..."}   ("response" or "prediction" also accepted; null = unanswered)

--xbench loads xbench-DeepSearch from <benchmarks>/xbench_deepsearch/DeepSearch-<version>.csv and
decrypts it in memory (each field is base64 of the text XOR-ed with the row's canary string).
pass@1 = correct / (questions − judge failures); unanswered questions count as incorrect;
judge failures are counted and reported, never scored.`;

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
    .requiredOption("--answers <file>", "the answers to judge (JSON Lines)")
    .addHelpText("after", FORMATS)
    .action(
      async (
        flags: JudgeFlags & { questions?: string; xbench?: string; benchmarks: string; answers: string },
        cmd: Command,
      ) => {
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
        const questions = flags.questions
          ? loadQuestions(resolve(io.cwd, flags.questions))
          : loadXbench(resolve(io.cwd, flags.benchmarks), flags.xbench as XbenchVersion);
        const answers = loadAnswers(resolve(io.cwd, flags.answers));
        const known = new Set(questions.map((q) => q.id));
        const stray = [...answers.keys()].filter((id) => !known.has(id)).length;
        const judge = openJudge(io, cmd, flags);
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
          })),
        );
        if (flags.json) {
          io.out(
            `${JSON.stringify({ ...summary, unmatchedAnswers: stray, judgeModel: judge.model, usage: judge.usage() })}\n`,
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
        if (stray) io.out(`note: ${stray} answer(s) name no question and were ignored\n`);
        io.out(judgeSummaryLine(judge.model, summary.judge, judge.usage()));
      },
    );
}
