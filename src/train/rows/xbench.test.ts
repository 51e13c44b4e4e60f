import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BENCHMARKS_DIR, haveBenchmarkFile } from "../../../test/benchmarks.ts";
import { xorEncrypt } from "../../eval/deepsearch/xbench.ts";
import { questionRowSchema } from "../question-row.ts";
import { BENCHMARK_FILES } from "./benchmark-files.ts";
import { readXbenchRows, xbenchRows } from "./xbench.ts";

describe("xbench-DeepSearch rows", () => {
  it("decrypts each row into a question with its answer and solution path", () => {
    const canary = "canary GUID test:1";
    const csv = [
      "id,prompt,answer,reference_steps,canary",
      `3,${xorEncrypt("哪一年建成？", canary)},${xorEncrypt(" 1998 ", canary)},${xorEncrypt("1. search", canary)},${canary}`,
      `4,${xorEncrypt("Who?", canary)},${xorEncrypt("Ada", canary)},,${canary}`,
    ].join("\n");
    expect(xbenchRows(csv, { benchmark: "xbench-deepsearch-2505" })).toEqual([
      {
        id: "3",
        prompt: "哪一年建成？",
        answer: "1998",
        referenceSteps: "1. search",
        benchmark: "xbench-deepsearch-2505",
      },
      { id: "4", prompt: "Who?", answer: "Ada", benchmark: "xbench-deepsearch-2505" },
    ]);
    expect(() =>
      xbenchRows(`id,prompt,answer,canary\n5,${xorEncrypt("Q", "k")},${xorEncrypt(" ", "k")},k\n`),
    ).toThrow(/xbench question 5/);
  });

  for (const version of ["2505", "2510"] as const) {
    const path = join(BENCHMARKS_DIR, BENCHMARK_FILES.xbench[version]);
    it.skipIf(!haveBenchmarkFile(path, `reading the real xbench-DeepSearch ${version} rows`))(
      `reads the real ${version} set: 100 Chinese questions with answers`,
      () => {
        const rows = readXbenchRows(path, { benchmark: `xbench-deepsearch-${version}` });
        expect(rows).toHaveLength(100);
        expect(new Set(rows.map((r) => r.id)).size).toBe(100);
        for (const row of rows) {
          expect(questionRowSchema.safeParse(row).success).toBe(true);
          expect(row.answer?.trim()).toBe(row.answer);
          expect(row.benchmark).toBe(`xbench-deepsearch-${version}`);
        }
        expect(rows.filter((r) => /\p{Script=Han}/u.test(r.prompt)).length).toBeGreaterThan(90);
        expect(rows.filter((r) => typeof r.referenceSteps === "string").length).toBeGreaterThan(90);
      },
    );
  }
});
