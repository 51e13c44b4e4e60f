import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BENCHMARKS_DIR, haveBenchmarkFile } from "../../../test/benchmarks.ts";
import { questionRowSchema, rowRaceCriteria } from "../question-row.ts";
import { BENCHMARK_FILES } from "./benchmark-files.ts";
import { deepResearchBenchRows, readDeepResearchBenchRows } from "./deepresearch-bench.ts";

const criteriaFor = (prompt: string, id?: number) => ({
  ...(id === undefined ? {} : { id }),
  prompt,
  dimension_weight: { comprehensiveness: 0.4, insight: 0.3, instruction_following: 0.2, readability: 0.1 },
  criterions: { comprehensiveness: [{ criterion: "Coverage", explanation: "Covers the market", weight: 1 }] },
});

describe("DeepResearch Bench rows", () => {
  it("joins criteria and reference articles to tasks by their exact prompt, not by id", () => {
    const rows = deepResearchBenchRows({
      queries: [
        { id: 1, topic: "Energy", language: "en", prompt: "Heat pumps in Europe" },
        { id: 2, topic: "Finance", language: "zh", prompt: "中国保险公司比较" },
      ],
      // ids deliberately crossed: the prompt decides
      criteria: [criteriaFor("中国保险公司比较", 1), criteriaFor("Heat pumps in Europe", 2)],
      references: [{ prompt: "Heat pumps in Europe", article: "# Heat pumps\n\nSales rose [1]." }],
    });
    expect(rows).toEqual([
      {
        id: "1",
        prompt: "Heat pumps in Europe",
        rubric: criteriaFor("Heat pumps in Europe", 2),
        reference: "# Heat pumps\n\nSales rose [1].",
        topic: "Energy",
        language: "en",
        benchmark: "deepresearch-bench",
      },
      {
        id: "2",
        prompt: "中国保险公司比较",
        rubric: criteriaFor("中国保险公司比较", 1),
        topic: "Finance",
        language: "zh",
        benchmark: "deepresearch-bench",
      },
    ]);
    expect(rowRaceCriteria(rows[0]!)?.dimension_weight.insight).toBe(0.3);
  });

  it("leaves a task without criteria rubric-less and refuses two criteria for one prompt", () => {
    const [row] = deepResearchBenchRows({ queries: [{ id: 7, prompt: "Only a query" }] });
    expect(row).toEqual({ id: "7", prompt: "Only a query", benchmark: "deepresearch-bench" });
    expect(() =>
      deepResearchBenchRows({
        queries: [{ id: 1, prompt: "p" }],
        criteria: [criteriaFor("p"), criteriaFor("p")],
      }),
    ).toThrow(/two criteria lines for one prompt/);
  });

  it("reports a missing file as NOT_FOUND", () => {
    expect(() =>
      readDeepResearchBenchRows({ queries: join(BENCHMARKS_DIR, "absent", "query.jsonl") }),
    ).toThrow(/DeepResearch Bench queries not found/);
  });

  const queries = join(BENCHMARKS_DIR, BENCHMARK_FILES.deepResearchBench.queries);
  const criteria = join(BENCHMARKS_DIR, BENCHMARK_FILES.deepResearchBench.criteria);
  const have =
    haveBenchmarkFile(queries, "reading the real DeepResearch Bench queries") &&
    haveBenchmarkFile(criteria, "reading the real DeepResearch Bench criteria");
  it.skipIf(!have)("reads the real 100 tasks, each with its RACE criteria", () => {
    const rows = readDeepResearchBenchRows({ queries, criteria });
    expect(rows).toHaveLength(100);
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 100 }, (_, i) => String(i + 1)));
    expect(rows.filter((r) => r.language === "zh")).toHaveLength(50);
    for (const row of rows) {
      expect(questionRowSchema.safeParse(row).success).toBe(true);
      const race = rowRaceCriteria(row);
      expect(race?.prompt).toBe(row.prompt);
      const weights = Object.values(race!.dimension_weight).reduce((a, b) => a + b, 0);
      expect(weights).toBeCloseTo(1, 6);
      expect(typeof row.topic).toBe("string");
    }
  });
});
