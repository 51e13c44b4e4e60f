/**
 * `dossier eval temporal` and `dossier eval tables` in-process.
 */

import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliOutcome, runCliInProcess } from "../../../../test/cli-io.ts";

let cwd: string;

beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-checks-")));
});

afterEach(() => {
  fs.rmSync(cwd, { recursive: true, force: true });
});

function dossier(args: string[]): Promise<CliOutcome> {
  return runCliInProcess(args, { cwd, env: { HOME: cwd } });
}

const REPORT = [
  "# Electric vehicles",
  "",
  "Global EV sales will reach 20 million units by 2024.",
  "According to the IEA, sales will reach 25 million by 2025.",
  "Sales are expected to exceed 60 million by 2030.",
  "",
  "预计到2024年，国内充电桩数量将突破1000万台。",
  "据中国汽车工业协会预测，2025年新能源汽车销量将达到1500万辆。",
  "预计2030年新能源汽车渗透率将超过80%。",
  "",
].join("\n");

describe("dossier eval temporal", () => {
  it("flags unattributed English and Chinese predictions about past dates, and nothing else", async () => {
    fs.writeFileSync(join(cwd, "report.md"), REPORT);
    const result = await dossier([
      "eval",
      "temporal",
      "report.md",
      "--date",
      "2026-03-01",
      "--out",
      "t.jsonl",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    // 6 sentences, 6 predictive, 4 past-dated, 2 flagged → 33.3%.
    expect(result.stdout).toMatch(/^\s*6\s+6\s+4\s+2\s+33\.3%$/m);
    expect(result.stdout).toMatch(
      /^\s*3\s+2024\s+will\s+Global EV sales will reach 20 million units by 2024\.$/m,
    );
    expect(result.stdout).toMatch(/^\s*7\s+2024年\s+预计\s+预计到2024年，国内充电桩数量将突破1000万台。$/m);
    expect(result.stdout).not.toContain("IEA");
    expect(result.stdout).not.toContain("中国汽车工业协会");
    expect(result.stdout).not.toContain("2030");
    const lines = fs
      .readFileSync(join(cwd, "t.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { flagged: boolean; attribution: string | null; past: boolean });
    expect(lines.map((l) => [l.past, l.flagged])).toEqual([
      [true, true],
      [true, false],
      [false, false],
      [true, true],
      [true, false],
      [false, false],
    ]);
    expect(lines[1]!.attribution).toBe("According to");
  });

  it("prints one JSON line with --json and refuses a bad date", async () => {
    fs.writeFileSync(join(cwd, "report.md"), REPORT);
    const json = await dossier(["eval", "temporal", "report.md", "--date", "2026-03-01", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      sentences: 6,
      predictive: 6,
      pastPredictive: 4,
      flagged: 2,
    });
    const bad = await dossier(["eval", "temporal", "report.md", "--date", "03/01/2026"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^dossier: error \[INPUT_INVALID\]: current date "03\/01\/2026" is not YYYY-MM-DD/,
    );
  });
});

describe("dossier eval tables", () => {
  it("reports invalid tables and writes a repaired copy", async () => {
    const md = [
      "| a | b |",
      "| --- | --- |",
      "| 1 | 2 |",
      "",
      "| x | y | z |",
      "| 1 | 2 |",
      "",
      "```",
      "| code | not | a table |",
      "```",
    ].join("\n");
    fs.writeFileSync(join(cwd, "report.md"), md);
    const result = await dossier([
      "eval",
      "tables",
      "report.md",
      "--repair",
      "fixed.md",
      "--out",
      "tables.jsonl",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\s*2\s+1\s+1\s+50\.0%$/m);
    expect(result.stdout).toMatch(/^\s*2\s+6\s+missing-separator\s/m);
    expect(result.stdout).toMatch(/^\s*2\s+6\s+column-count\s+row has 2 cells, the header 3$/m);
    expect(result.stdout).toContain("repaired 1 table(s) → fixed.md");
    expect(fs.readFileSync(join(cwd, "fixed.md"), "utf8")).toBe(
      md.replace("| x | y | z |\n| 1 | 2 |", "| x | y | z |\n| --- | --- | --- |\n| 1 | 2 |  |"),
    );
    const lines = fs.readFileSync(join(cwd, "tables.jsonl"), "utf8").trim().split("\n");
    expect(lines.map((l) => (JSON.parse(l) as { valid: boolean }).valid)).toEqual([true, false]);
    const again = await dossier(["eval", "tables", "fixed.md", "--json"]);
    expect(JSON.parse(again.stdout)).toEqual({ report: "fixed.md", total: 2, valid: 2, validRate: 1 });
  });

  it("fails with INPUT_INVALID for a missing file", async () => {
    const result = await dossier(["eval", "tables", "nope.md"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dossier: error \[INPUT_INVALID\]: cannot read nope\.md/);
  });
});
