import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { benchmarkPath, haveBenchmarkFile } from "../../../test/benchmarks.ts";
import { readJsonl } from "./jsonl.ts";
import { raceResultRowSchema } from "./records.ts";
import { formatRaceResultText, formatRaceTable, summarizeRaceResults } from "./summary.ts";

const RESULTS = benchmarkPath("deepresearch_bench/results/race/claude-3-7-sonnet-latest");
const HAVE_BENCH = haveBenchmarkFile(
  resolve(RESULTS, "raw_results.jsonl"),
  "reproducing the published RACE summary",
);

describe("summarizeRaceResults", () => {
  it("averages the rows that scored, counts error rows as failed, and treats a missing field as 0", () => {
    const summary = summarizeRaceResults([
      {
        id: 1,
        comprehensiveness: 0.5,
        insight: 0.4,
        instruction_following: 0.6,
        readability: 0.3,
        overall_score: 0.45,
      },
      { id: 2, comprehensiveness: 0.3, insight: 0.2, instruction_following: 0.2, overall_score: 0.25 },
      { id: 3, prompt: "p", error: "Failed after 10 retries" },
    ]);
    expect(summary).toEqual({
      overall: 0.35,
      comprehensiveness: 0.4,
      insight: (0.4 + 0.2) / 2,
      instruction_following: 0.4,
      readability: 0.15,
      tasks: 2,
      failed: 1,
    });
  });

  it("has no figures when nothing scored", () => {
    const summary = summarizeRaceResults([{ id: 1, error: "x" }]);
    expect(summary.overall).toBeNull();
    expect(formatRaceResultText(summary)).toContain("Overall Score: n/a\n");
  });

  it("prints the five figures to 4 decimals and the counts", () => {
    const table = formatRaceTable({
      overall: 0.5625,
      comprehensiveness: 0.75,
      insight: 0.35,
      instruction_following: 0.65,
      readability: 0.5,
      tasks: 2,
      failed: 1,
    });
    expect(table).toBe(
      [
        "RACE",
        "  Comprehensiveness:      0.7500",
        "  Insight:                0.3500",
        "  Instruction Following:  0.6500",
        "  Readability:            0.5000",
        "  Overall Score:          0.5625",
        "  Tasks scored:           2",
        "  Tasks failed:           1",
        "",
      ].join("\n"),
    );
  });

  it.skipIf(!HAVE_BENCH)(
    "reproduces race_result.txt of the benchmark's claude-3-7-sonnet-latest results",
    () => {
      const rows = readJsonl(resolve(RESULTS, "raw_results.jsonl"), raceResultRowSchema);
      const summary = summarizeRaceResults(rows);
      expect(summary.tasks).toBe(100);
      expect(summary.failed).toBe(0);
      expect(formatRaceResultText(summary)).toBe(readFileSync(resolve(RESULTS, "race_result.txt"), "utf8"));
    },
  );
});
