import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { benchmarkPath, haveBenchmarkFile } from "../../../test/benchmarks.ts";
import { parseJsonl, readJsonl } from "./jsonl.ts";
import { buildJudgePrompt, criteriaForJudge } from "./judge-prompt.ts";
import { promptLanguage } from "./language.ts";
import { raceArticleSchema, raceCriteriaSchema, raceQuerySchema } from "./records.ts";

const BENCH = benchmarkPath("deepresearch_bench");
const HAVE_BENCH = haveBenchmarkFile(
  resolve(BENCH, "data/criteria_data/criteria.jsonl"),
  "loading the DeepResearch Bench data files",
);

describe("benchmark files", () => {
  it.skipIf(!HAVE_BENCH)("load with the schemas and join on the exact prompt", () => {
    const criteria = readJsonl(resolve(BENCH, "data/criteria_data/criteria.jsonl"), raceCriteriaSchema);
    const queries = readJsonl(resolve(BENCH, "data/prompt_data/query.jsonl"), raceQuerySchema);
    const targets = readJsonl(
      resolve(BENCH, "data/test_data/cleaned_data/claude-3-7-sonnet-latest.jsonl"),
      raceArticleSchema,
    );
    expect([criteria.length, queries.length, targets.length]).toEqual([100, 100, 100]);
    const byPrompt = new Set(criteria.map((c) => c.prompt));
    expect(queries.filter((q) => byPrompt.has(q.prompt))).toHaveLength(100);
    expect(targets.filter((t) => byPrompt.has(t.prompt))).toHaveLength(100);
    expect(criteria.reduce((n, c) => n + Object.values(c.criterions).flat().length, 0)).toBe(2517);
    // The judge never sees weights.
    const view = criteriaForJudge(criteria[0]!);
    expect(view).not.toContain('"weight"');
    expect(view).not.toContain('"comment"');
    expect(JSON.parse(view).insight[0]).toEqual({
      criterion: criteria[0]!.criterions.insight![0]!.criterion,
      explanation: criteria[0]!.criterions.insight![0]!.explanation,
    });
    expect(queries.map((q) => promptLanguage(q.prompt))).toEqual(queries.map((q) => q.language));
  });
});

describe("parseJsonl", () => {
  it("names the file and line of a bad record", () => {
    expect(() =>
      parseJsonl('{"prompt":"p","article":"a"}\n\n{"prompt":3}\n', raceArticleSchema, "t.jsonl"),
    ).toThrow(/^t\.jsonl:3: /);
    expect(() => parseJsonl("{oops", raceArticleSchema, "t.jsonl")).toThrow(/^t\.jsonl:1: not JSON/);
  });
});

describe("buildJudgePrompt", () => {
  const criteria = {
    prompt: "Compare A and B",
    dimension_weight: { comprehensiveness: 1 },
    criterions: { comprehensiveness: [{ criterion: "Breadth", explanation: "covers both", weight: 0.7 }] },
  };
  it("puts the target in article_1 and the reference in article_2, without weights", () => {
    const { system, prompt } = buildJudgePrompt({
      language: "en",
      task: "Compare A and B",
      target: "TARGET TEXT",
      reference: "REFERENCE TEXT",
      criteria,
    });
    expect(system).toMatch(/compare the reports criterion by criterion/);
    expect(prompt).toContain("<task>\nCompare A and B\n</task>");
    expect(prompt).toContain("<article_1>\nTARGET TEXT\n</article_1>");
    expect(prompt).toContain("<article_2>\nREFERENCE TEXT\n</article_2>");
    expect(prompt).toContain('"criterion": "Breadth"');
    expect(prompt).not.toContain("0.7");
    expect(prompt).toContain('"article_1_score": <0-10>');
  });
  it("has a Chinese version for Chinese tasks", () => {
    const { prompt } = buildJudgePrompt({
      language: "zh",
      task: "比较",
      target: "甲",
      reference: "乙",
      criteria,
    });
    expect(prompt).toContain("评价标准");
    expect(prompt).toContain("<article_1>\n甲\n</article_1>");
  });
});
