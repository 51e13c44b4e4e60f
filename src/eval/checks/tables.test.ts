import { describe, expect, it } from "vitest";
import { checkTables, fitCells, repairTables, repairTablesDetailed } from "./tables.ts";

const valid = [
  "| Model | Range | Price |",
  "| :--- | ---: | --- |",
  "| A | 500 km | $40k |",
  "| B | 600 km | $50k |",
].join("\n");

describe("checkTables", () => {
  it("accepts a well-formed table", () => {
    const result = checkTables(`Intro.\n\n${valid}\n\nAfter.`);
    expect(result).toMatchObject({ total: 1, valid: 1, validRate: 1 });
    expect(result.tables[0]).toMatchObject({
      startLine: 3,
      endLine: 6,
      columns: 3,
      rows: 2,
      valid: true,
      problems: [],
    });
  });

  it("reports a missing delimiter row and a row with too few cells", () => {
    const md = ["| a | b |", "| 1 | 2 |", "| 3 |"].join("\n");
    const [table] = checkTables(md).tables;
    expect(table!.valid).toBe(false);
    expect(table!.rows).toBe(2);
    expect(table!.problems).toEqual([
      { kind: "missing-separator", line: 2, message: expect.any(String) },
      { kind: "column-count", line: 3, message: "row has 1 cells, the header 2", expected: 2, actual: 1 },
    ]);
  });

  it("reports a malformed delimiter and a delimiter with the wrong cell count", () => {
    const bad = checkTables("| a | b |\n|---|:=:|\n| 1 | 2 |").tables[0]!;
    expect(bad.problems.map((p) => p.kind)).toEqual(["invalid-separator"]);
    const short = checkTables("| a | b | c |\n|---|---|\n| 1 | 2 | 3 |").tables[0]!;
    expect(short.problems).toEqual([
      expect.objectContaining({ kind: "separator-column-count", expected: 3, actual: 2 }),
    ]);
  });

  it("counts 1 valid of 2 tables and ignores tables inside code blocks and prose with pipes", () => {
    const md = [
      valid,
      "",
      "```",
      "| not | a table |",
      "| x |",
      "```",
      "",
      "Use a | b for alternatives.",
      "",
      "| x | y |",
      "| 1 | 2 | 3 |",
    ].join("\n");
    const result = checkTables(md);
    expect(result.total).toBe(2);
    expect(result.valid).toBe(1);
    expect(result.validRate).toBe(0.5);
    expect(result.tables[1]!.startLine).toBe(13);
  });

  it("has a null rate when there is no table", () => {
    expect(checkTables("No tables here.")).toEqual({ tables: [], total: 0, valid: 0, validRate: null });
  });

  it("keeps escaped pipes inside cells", () => {
    const md = "| expr | meaning |\n| --- | --- |\n| a \\| b | either |";
    expect(checkTables(md).tables[0]!.valid).toBe(true);
  });
});

describe("fitCells", () => {
  it("pads, drops empty extras and joins non-empty extras into the last cell", () => {
    expect(fitCells(["a"], 3)).toEqual(["a", "", ""]);
    expect(fitCells(["a", "b", "", ""], 2)).toEqual(["a", "b"]);
    expect(fitCells(["a", "b", "c", "", "d"], 2)).toEqual(["a", "b; c; d"]);
  });
});

describe("repairTables", () => {
  it("inserts a missing delimiter row and fits rows to the header", () => {
    const md = ["Text before.", "", "| a | b |", "| 1 | 2 | 9 |", "| 3 |", "", "Text after."].join("\n");
    expect(repairTables(md)).toBe(
      ["Text before.", "", "| a | b |", "| --- | --- |", "| 1 | 2; 9 |", "| 3 |  |", "", "Text after."].join(
        "\n",
      ),
    );
  });

  it("rebuilds a malformed delimiter keeping alignment", () => {
    expect(repairTables("| a | b | c |\n|:--|--:|\n| 1 | 2 | 3 |")).toBe(
      "| a | b | c |\n| :--- | ---: | --- |\n| 1 | 2 | 3 |",
    );
  });

  it("leaves valid tables, code blocks and line endings alone", () => {
    const crlf = valid.replaceAll("\n", "\r\n");
    const md = `${crlf}\r\n\r\n\`\`\`\r\n| a | b |\r\n| 1 |\r\n\`\`\`\r\n\r\n| x | y |\r\n| 1 |\r\n`;
    const { markdown, repaired } = repairTablesDetailed(md);
    expect(repaired).toEqual([1]);
    expect(markdown).toBe(
      `${crlf}\r\n\r\n\`\`\`\r\n| a | b |\r\n| 1 |\r\n\`\`\`\r\n\r\n| x | y |\r\n| --- | --- |\r\n| 1 |  |\r\n`,
    );
    expect(repairTables(valid)).toBe(valid);
    expect(checkTables(markdown).valid).toBe(2);
  });
});
