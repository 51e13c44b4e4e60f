import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BENCHMARKS_DIR, haveBenchmarkFile } from "../../../test/benchmarks.ts";
import { questionRowSchema } from "../question-row.ts";
import { BENCHMARK_FILES } from "./benchmark-files.ts";
import { deepConsultRows, readDeepConsultRows } from "./deepconsult.ts";

describe("DeepConsult rows", () => {
  it("numbers the queries by position and reads quoted records across lines", () => {
    const csv = [
      "query",
      "Evaluate the outlook for regional banks.",
      '"Analyze ""quiet luxury"" brands:',
      "",
      '1. Margins"',
      "",
    ].join("\n");
    expect(deepConsultRows(csv)).toEqual([
      { id: "1", prompt: "Evaluate the outlook for regional banks.", benchmark: "deepconsult" },
      { id: "2", prompt: 'Analyze "quiet luxury" brands:\n\n1. Margins', benchmark: "deepconsult" },
    ]);
  });

  it("refuses a file without a query column or with an empty query", () => {
    expect(() => deepConsultRows("question\nWhat?\n")).toThrow(/no "query" column/);
    expect(() => deepConsultRows('query,x\n" ",1\n')).toThrow(/record 1 has an empty query/);
    expect(() => readDeepConsultRows(join(BENCHMARKS_DIR, "absent.csv"))).toThrow(/not found/);
  });

  const path = join(BENCHMARKS_DIR, BENCHMARK_FILES.deepConsult);
  it.skipIf(!haveBenchmarkFile(path, "reading the real DeepConsult queries"))(
    "reads the real 102 queries, multi-line ones whole",
    () => {
      const rows = readDeepConsultRows(path);
      expect(rows).toHaveLength(102);
      expect(rows.at(-1)!.id).toBe("102");
      // quoted records span lines: 102 queries, some of several lines, none cut into pieces
      expect(rows.some((r) => r.prompt.includes("\n"))).toBe(true);
      for (const row of rows) {
        expect(questionRowSchema.safeParse(row).success).toBe(true);
        expect(row.prompt.length).toBeGreaterThan(40);
      }
    },
  );
});
