/**
 * `dossier eval preference`: preference accuracy (AUC) and paired Cohen's d of a scorer over
 * (query, preferred, rejected) triples — from a scores file, or by scoring the triples with a
 * rubric, pointwise or pairwise judge.
 */

import { resolve } from "node:path";
import type { Command } from "commander";
import { DossierError } from "../../../core/errors.ts";
import { joinScores, loadScores, loadTriples } from "../../../eval/preference/preference-files.ts";
import { preferenceMetrics, type ScoredPair } from "../../../eval/preference/preference-metrics.ts";
import {
  PREFERENCE_SCORERS,
  type PreferenceScorer,
  scoreTriples,
} from "../../../eval/preference/preference-scorers.ts";
import { count, fmt, formatTable, pct } from "../../../eval/process/text-table.ts";
import type { JudgeCounts } from "../../../eval/rubric/judge-call.ts";
import type { CliIo } from "../../io.ts";
import { type JudgeFlags, judgeSummaryLine, openJudge, withJudgeOptions, writeDetails } from "./rubric.ts";

const FORMATS = `
File formats (JSON Lines, one object per line):
  triples  {"id": "q1", "query": "...", "preferred": <report>, "rejected": <report>, "rubric"?: <rubric>}
           <report> is Markdown text or {"path": "a.md"} (relative to the triples file);
           <rubric> is {"query", "items"} or {"path": "r.json"} (rubric scorer; else one is generated)
  scores   {"id": "q1", "preferred": 0.72, "rejected": 0.41}   (null = the scorer failed; counted as skipped)

Accuracy = share of pairs with S(preferred) > S(rejected) (ties are misses); AUC counts a tie as 1/2.
Paired Cohen's d = mean(Δ) / sd(Δ), Δ = S(preferred) − S(rejected), sample sd (n − 1).
With --triples and --scorer, --out writes the scores file.`;

/** Registers `dossier eval preference`. */
export function registerPreferenceEval(evalCommand: Command, io: CliIo): void {
  withJudgeOptions(evalCommand.command("preference"), "write per-triple scores as JSON Lines (a scores file)")
    .description(
      "preference accuracy (AUC) and paired Cohen's d of a scorer over (query, preferred, rejected) triples",
    )
    .option("--triples <file>", "triples to score (JSON Lines)")
    .option(
      "--scores <file>",
      "precomputed scores (JSON Lines), joined with --triples by id when both are given",
    )
    .option("--scorer <name>", `score the triples with a judge: ${PREFERENCE_SCORERS.join(", ")}`)
    .addHelpText("after", FORMATS)
    .action(
      async (flags: JudgeFlags & { triples?: string; scores?: string; scorer?: string }, cmd: Command) => {
        if (flags.scorer !== undefined && !(PREFERENCE_SCORERS as readonly string[]).includes(flags.scorer)) {
          throw new DossierError(
            "INPUT_INVALID",
            `--scorer must be one of ${PREFERENCE_SCORERS.join(", ")}, got "${flags.scorer}"`,
          );
        }
        if (flags.scores && flags.scorer)
          throw new DossierError("INPUT_INVALID", "give --scores or --scorer, not both");
        if (!flags.scores && !(flags.triples && flags.scorer)) {
          throw new DossierError(
            "INPUT_INVALID",
            "give --scores <file>, or --triples <file> with --scorer <name>",
          );
        }
        const path = (p: string) => resolve(io.cwd, p);
        let pairs: Array<ScoredPair & { errors?: string[] }>;
        let judgeLine = "";
        let counts: JudgeCounts | undefined;
        const notes: string[] = [];
        if (flags.scores) {
          const scores = loadScores(path(flags.scores));
          if (flags.triples) {
            const joined = joinScores(
              loadTriples(path(flags.triples)).map((t) => t.id),
              scores,
            );
            pairs = joined.pairs;
            if (joined.extra.length)
              notes.push(`${joined.extra.length} score line(s) name no triple and were ignored`);
          } else pairs = scores;
        } else {
          const triples = loadTriples(path(flags.triples!));
          const judge = openJudge(io, cmd, flags);
          const scoring = await scoreTriples(judge.client, triples, flags.scorer as PreferenceScorer, {
            concurrency: judge.concurrency,
          });
          pairs = scoring.pairs;
          counts = scoring.judge;
          judgeLine = judgeSummaryLine(judge.model, scoring.judge, judge.usage());
        }
        writeDetails(io, flags.out, pairs);
        const m = preferenceMetrics(pairs);
        if (flags.json) {
          io.out(
            `${JSON.stringify({ scorer: flags.scorer ?? "scores-file", ...m, ...(counts ? { judge: counts } : {}) })}\n`,
          );
          return;
        }
        io.out(
          formatTable(
            ["pairs", "skipped", "wins", "ties", "losses", "accuracy", "AUC", "mean Δ", "sd Δ", "Cohen's d"],
            [
              [
                count(m.n),
                count(m.skipped),
                count(m.wins),
                count(m.ties),
                count(m.losses),
                pct(m.accuracy),
                pct(m.auc),
                fmt(m.effect.mean),
                fmt(m.effect.sd),
                fmt(m.effect.d),
              ],
            ],
          ),
        );
        for (const note of notes) io.out(`note: ${note}\n`);
        io.out(judgeLine);
      },
    );
}
