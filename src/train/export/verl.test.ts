import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, describe, expect, it } from "vitest";
import type { QuestionRow } from "../question-row.ts";
import { fixtureRow, fixtureRun } from "../test-fixtures.ts";
import { ROW } from "./test-fixtures.ts";
import { questionRowsOfRuns, verlParquet, verlRecordSchema, verlRecords } from "./verl.ts";
import { writeExportFile } from "./write.ts";

const dir = mkdtempSync(join(tmpdir(), "dossier-verl-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Reads a Parquet file with DuckDB (an independent reader): column types and rows as JSON. */
async function readWithDuckDb(path: string) {
  const db = await DuckDBInstance.create(":memory:");
  const connection = await db.connect();
  const file = path.replaceAll("'", "''");
  const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
  const columns = described.getRowObjectsJson().map((r) => [r.column_name, r.column_type]);
  const rows = (await connection.runAndReadAll(`SELECT * FROM read_parquet('${file}')`)).getRowObjectsJson();
  connection.closeSync();
  db.closeSync();
  return { columns, rows };
}

const REPORT_ROW: QuestionRow = fixtureRow({
  id: "51",
  prompt: "Write a report on heat pumps in Europe.",
  reference: "# Heat pumps\n\nSales rose [1].",
  rubric: [{ title: "Covers sales", description: "Gives yearly sales", weight: 3 }],
  language: "en",
  benchmark: "deepresearch-bench",
  topic: "Energy",
});

describe("verl export", () => {
  it("writes verl's columns with nested types that DuckDB reads back as written", async () => {
    const records = verlRecords([ROW, REPORT_ROW], { systemPrompt: "Answer with evidence." });
    const path = join(dir, "train.parquet");
    writeExportFile(path, verlParquet(records));
    const { columns, rows } = await readWithDuckDb(path);
    expect(columns).toEqual([
      ["data_source", "VARCHAR"],
      ["prompt", 'STRUCT("role" VARCHAR, "content" VARCHAR)[]'],
      ["ability", "VARCHAR"],
      ["reward_model", "STRUCT(style VARCHAR, ground_truth VARCHAR)"],
      [
        "extra_info",
        'STRUCT(split VARCHAR, "index" BIGINT, id VARCHAR, question VARCHAR, answer VARCHAR, entities VARCHAR[], reference VARCHAR, rubric VARCHAR, "language" VARCHAR)',
      ],
    ]);
    expect(rows).toEqual([
      {
        data_source: "dossier",
        prompt: [
          { role: "system", content: "Answer with evidence." },
          { role: "user", content: ROW.prompt },
        ],
        ability: "deep-search",
        reward_model: { style: "rule", ground_truth: "New York City" },
        extra_info: {
          split: "train",
          index: "0", // BIGINT, given as text by DuckDB's JSON rows
          id: "q1",
          question: ROW.prompt,
          answer: "New York City",
          entities: ["Astoria", "Queens"],
          reference: null,
          rubric: null,
          language: null,
        },
      },
      {
        data_source: "deepresearch-bench",
        prompt: [
          { role: "system", content: "Answer with evidence." },
          { role: "user", content: REPORT_ROW.prompt },
        ],
        ability: "deep-research",
        reward_model: { style: "model", ground_truth: "" },
        extra_info: {
          split: "train",
          index: "1",
          id: "51",
          question: REPORT_ROW.prompt,
          answer: null,
          entities: null,
          reference: REPORT_ROW.reference,
          rubric: JSON.stringify(REPORT_ROW.rubric),
          language: "en",
        },
      },
    ]);
    // the rubric is JSON text a reward function can parse back
    expect(JSON.parse(String((rows[1]!.extra_info as { rubric: string }).rubric))).toEqual(REPORT_ROW.rubric);
  });

  it("keeps every row across row groups (more rows than the writer's first group)", async () => {
    const rows = Array.from({ length: 1203 }, (_, i) =>
      fixtureRow({ id: `t${i}`, prompt: `question ${i}`, ...(i % 2 ? { answer: `a${i}` } : {}) }),
    );
    const path = join(dir, "many.parquet");
    writeExportFile(path, verlParquet(verlRecords(rows, { split: "test", dataSource: "mine" })));
    const read = await readWithDuckDb(path);
    expect(read.rows).toHaveLength(1203);
    const last = read.rows.at(-1) as {
      prompt: unknown;
      extra_info: Record<string, unknown>;
      data_source: string;
    };
    expect(last.prompt).toEqual([{ role: "user", content: "question 1202" }]);
    expect(last.extra_info).toMatchObject({ split: "test", index: "1202", id: "t1202", answer: null });
    expect(last.data_source).toBe("mine");
  });

  it("writes only the documented fields: a row's other fields stay out", () => {
    const [record] = verlRecords([{ ...REPORT_ROW, internal_note: "not for training" }]);
    expect(JSON.stringify(record)).not.toContain("not for training");
    expect(JSON.stringify(record)).not.toContain("Energy"); // topic is not a verl column
    expect(verlRecordSchema.safeParse(record).success).toBe(true);
  });

  it("refuses duplicate questions, an empty file and records of another shape", () => {
    expect(() => verlRecords([ROW, ROW])).toThrow(/q1 is given twice/);
    expect(() => verlParquet([])).toThrow(/at least one question/);
    const [record] = verlRecords([ROW]);
    const broken = { ...record!, reward_model: { style: "exact", ground_truth: "x" } };
    expect(() => verlParquet([broken as never])).toThrow();
    expect(
      verlRecordSchema.safeParse({ ...record, prompt: [{ role: "assistant", content: "x" }] }).success,
    ).toBe(false);
  });

  it("takes each run's question once, refusing one id with two prompts", () => {
    const a = fixtureRun({ runId: "a", row: ROW });
    const b = fixtureRun({ runId: "b", row: ROW });
    const c = fixtureRun({ runId: "c", row: REPORT_ROW });
    expect(questionRowsOfRuns([a, c, b]).map((r) => r.id)).toEqual(["q1", "51"]);
    const clash = fixtureRun({ runId: "d", row: { ...ROW, prompt: "another question" } });
    expect(() => questionRowsOfRuns([a, clash])).toThrow(/two different prompts/);
  });
});
