/**
 * `dossier eval temporal <report.md> --date YYYY-MM-DD` and `dossier eval tables <report.md>`:
 * the report checks on any Markdown file (the same code the report pipeline runs).
 */

import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { isoDate, systemClock } from "../../../core/clock.ts";
import { DossierError } from "../../../core/errors.ts";
import { checkTables, repairTablesDetailed } from "../../../eval/checks/tables.ts";
import { checkTemporal, type TemporalCheckResult } from "../../../eval/checks/temporal.ts";
import { type VerifiedTemporalResult, verifyTemporal } from "../../../eval/checks/temporal-verify.ts";
import { count, formatTable, pct } from "../../../eval/process/text-table.ts";
import type { CliIo } from "../../io.ts";
import {
  type JudgeFlags,
  judgeSummaryLine,
  openJudge,
  readInput,
  withJudgeOptions,
  writeDetails,
} from "./rubric.ts";

const clip = (text: string, n = 90) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

function temporalOutput(
  io: CliIo,
  result: TemporalCheckResult | VerifiedTemporalResult,
  verified: boolean,
): void {
  io.out(
    formatTable(
      ["sentences", "predictive", "past-dated", "flagged", "error rate"],
      [
        [
          count(result.sentences),
          count(result.candidates.length),
          count(result.pastPredictive),
          count(result.flagged.length),
          pct(result.errorRate),
        ],
      ],
    ),
  );
  io.out(
    `\ncurrent date ${result.currentDate}; ${verified ? "attribution decided by the judge" : "regex stage only (add --verify for the model stage)"}\n`,
  );
  if (result.flagged.length) {
    io.out("\nFlagged: predictions about past dates with no named forecaster\n\n");
    io.out(
      formatTable(
        ["line", "date", "cue", "sentence"],
        result.flagged.map((f) => [String(f.line), f.date.text, f.cue, clip(f.sentence)]),
      ),
    );
  }
}

function registerTemporal(evalCommand: Command, io: CliIo): void {
  withJudgeOptions(evalCommand.command("temporal <report>"), "write every predictive statement as JSON Lines")
    .description(
      "flag predictive statements about dates already past that name no forecaster within 1-2 sentences (English and Chinese); --verify asks the judge about attribution",
    )
    .option("--date <YYYY-MM-DD>", "the current date (default: today, UTC)")
    .option("--language <en|zh|auto>", "which cue patterns to use", "auto")
    .option("--verify", "let the judge model decide attribution for each past-dated prediction")
    .action(
      async (
        report: string,
        flags: JudgeFlags & { date?: string; language: string; verify?: boolean },
        cmd: Command,
      ) => {
        if (!["en", "zh", "auto"].includes(flags.language)) {
          throw new DossierError(
            "INPUT_INVALID",
            `--language must be en, zh or auto, got "${flags.language}"`,
          );
        }
        const markdown = readInput(io, report);
        const currentDate = flags.date ?? isoDate(systemClock.now());
        const regex = checkTemporal(markdown, {
          currentDate,
          language: flags.language as "en" | "zh" | "auto",
        });
        let result: TemporalCheckResult | VerifiedTemporalResult = regex;
        let judgeLine = "";
        if (flags.verify) {
          const judge = openJudge(io, cmd, flags);
          const verified = await verifyTemporal(judge.client, regex, { concurrency: judge.concurrency });
          result = verified;
          judgeLine = judgeSummaryLine(
            judge.model,
            {
              total: verified.verified,
              ok: verified.verified - verified.judgeFailures,
              failed: verified.judgeFailures,
              calls: judge.usage().llmCalls,
              formatErrors: verified.formatErrors,
            },
            judge.usage(),
          );
        }
        writeDetails(io, flags.out, result.candidates);
        if (flags.json) {
          const { candidates, flagged, ...rest } = result;
          io.out(
            `${JSON.stringify({ report, ...rest, predictive: candidates.length, flagged: flagged.length })}\n`,
          );
          return;
        }
        temporalOutput(io, result, Boolean(flags.verify));
        io.out(judgeLine);
      },
    );
}

function registerTables(evalCommand: Command, io: CliIo): void {
  evalCommand
    .command("tables <report>")
    .description(
      "validate the Markdown tables of a report (header delimiter row, column counts); --repair writes a fixed copy",
    )
    .option("--repair <file>", "write the report with invalid tables repaired")
    .option("--out <file>", "write one JSON line per table")
    .option("--json", "print one JSON summary line instead of tables")
    .action((report: string, flags: { repair?: string; out?: string; json?: boolean }) => {
      const markdown = readInput(io, report);
      const result = checkTables(markdown);
      const repaired = flags.repair ? repairTablesDetailed(markdown) : null;
      if (repaired && flags.repair) writeFileSync(resolve(io.cwd, flags.repair), repaired.markdown);
      writeDetails(io, flags.out, result.tables);
      if (flags.json) {
        io.out(
          `${JSON.stringify({ report, total: result.total, valid: result.valid, validRate: result.validRate, ...(repaired ? { repaired: repaired.repaired.length } : {}) })}\n`,
        );
        return;
      }
      io.out(
        formatTable(
          ["tables", "valid", "invalid", "valid rate"],
          [
            [
              count(result.total),
              count(result.valid),
              count(result.total - result.valid),
              pct(result.validRate),
            ],
          ],
        ),
      );
      const problems = result.tables.flatMap((t) =>
        t.problems.map((p) => [String(t.index + 1), String(p.line), p.kind, p.message]),
      );
      if (problems.length) io.out(`\n${formatTable(["table", "line", "problem", "detail"], problems)}`);
      if (repaired) io.out(`\nrepaired ${repaired.repaired.length} table(s) → ${flags.repair}\n`);
    });
}

/** Registers `dossier eval temporal` and `dossier eval tables`. */
export function registerChecksEval(evalCommand: Command, io: CliIo): void {
  registerTemporal(evalCommand, io);
  registerTables(evalCommand, io);
}
