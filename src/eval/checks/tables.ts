/**
 * Markdown table validation and repair (seed: MindDR's valid-format-table rate). A table is
 * valid when its second line is a GFM delimiter row with one cell per header cell and every
 * body row has exactly the header's number of cells. Repair rewrites only invalid tables and
 * never touches code blocks.
 */

import { lineEnding, markdownLines } from "../../core/markdown.ts";
import {
  findTableBlocks,
  isSeparatorLike,
  isValidSeparator,
  splitCells,
  type TableBlock,
} from "./table-parse.ts";

/** What is wrong with a table. */
export type TableProblemKind =
  | "missing-separator"
  | "invalid-separator"
  | "separator-column-count"
  | "column-count";

/** One problem of one table. */
export interface TableProblem {
  kind: TableProblemKind;
  /** 1-based line of the offending row. */
  line: number;
  message: string;
  /** Cells expected (the header's count), for count problems. */
  expected?: number;
  /** Cells found, for count problems. */
  actual?: number;
}

/** The verdict on one table. */
export interface TableCheck {
  /** 0-based position among the document's tables. */
  index: number;
  /** 1-based first line. */
  startLine: number;
  /** 1-based last line. */
  endLine: number;
  /** Cells in the header row. */
  columns: number;
  /** Body rows (lines after the header and delimiter). */
  rows: number;
  valid: boolean;
  problems: TableProblem[];
}

/** The verdict on all tables of a document. */
export interface TablesCheckResult {
  tables: TableCheck[];
  total: number;
  valid: number;
  /** valid / total; null when the document has no table. */
  validRate: number | null;
}

function inspect(block: TableBlock, index: number, firstLine: number): TableCheck {
  const header = splitCells(block.rows[0]!);
  const columns = header.length;
  const problems: TableProblem[] = [];
  const second = block.rows[1]!;
  let bodyStart = 2;
  if (!isSeparatorLike(second)) {
    bodyStart = 1;
    problems.push({
      kind: "missing-separator",
      line: firstLine + 1,
      message: "no delimiter row (| --- | --- |) under the header",
    });
  } else if (!isValidSeparator(second)) {
    problems.push({
      kind: "invalid-separator",
      line: firstLine + 1,
      message: "the delimiter row has cells other than ---, :---, ---: or :---:",
    });
  } else if (splitCells(second).length !== columns) {
    const actual = splitCells(second).length;
    problems.push({
      kind: "separator-column-count",
      line: firstLine + 1,
      message: `the delimiter row has ${actual} cells, the header ${columns}`,
      expected: columns,
      actual,
    });
  }
  for (let r = bodyStart; r < block.rows.length; r++) {
    const actual = splitCells(block.rows[r]!).length;
    if (actual !== columns) {
      problems.push({
        kind: "column-count",
        line: firstLine + r,
        message: `row has ${actual} cells, the header ${columns}`,
        expected: columns,
        actual,
      });
    }
  }
  return {
    index,
    startLine: firstLine,
    endLine: firstLine + block.rows.length - 1,
    columns,
    rows: block.rows.length - bodyStart,
    valid: problems.length === 0,
    problems,
  };
}

/** Checks every pipe table of `markdown` (tables inside code blocks are ignored). */
export function checkTables(markdown: string): TablesCheckResult {
  const lines = markdownLines(markdown);
  const tables = findTableBlocks(lines).map((block, index) =>
    inspect(block, index, lines[block.start]!.line),
  );
  const valid = tables.filter((t) => t.valid).length;
  return { tables, total: tables.length, valid, validRate: tables.length ? valid / tables.length : null };
}

function row(cells: readonly string[], indent: string): string {
  return `${indent}| ${cells.join(" | ")} |`;
}

/** Fits a row to `columns` cells: pads with empty cells; extra trailing empty cells are dropped and
 * extra non-empty cells are joined into the last cell with "; " so that no text is lost. */
export function fitCells(cells: readonly string[], columns: number): string[] {
  if (cells.length <= columns) return [...cells, ...Array<string>(columns - cells.length).fill("")];
  const kept = cells.slice(0, columns);
  const extra = cells.slice(columns).filter((cell) => cell !== "");
  if (extra.length > 0) kept[columns - 1] = [kept[columns - 1], ...extra].filter((c) => c !== "").join("; ");
  return kept;
}

function separatorCells(text: string | null, columns: number): string[] {
  const old = text !== null && isSeparatorLike(text) ? splitCells(text) : [];
  return Array.from({ length: columns }, (_, i) => {
    const cell = old[i] ?? "";
    const left = cell.startsWith(":");
    const right = cell.endsWith(":") && cell.length > 1;
    return `${left ? ":" : ""}---${right ? ":" : ""}`;
  });
}

function rewrite(block: TableBlock): string[] {
  const header = splitCells(block.rows[0]!);
  const columns = header.length;
  const hasSeparator = isSeparatorLike(block.rows[1]!);
  const body = block.rows.slice(hasSeparator ? 2 : 1);
  return [
    row(header, block.indent),
    row(separatorCells(hasSeparator ? block.rows[1]! : null, columns), block.indent),
    ...body.map((line) => row(fitCells(splitCells(line), columns), block.indent)),
  ];
}

/** Result of {@link repairTablesDetailed}. */
export interface TablesRepair {
  markdown: string;
  /** Indexes of the tables that were rewritten. */
  repaired: number[];
}

/**
 * Repairs invalid tables: a missing delimiter row is inserted, a malformed one rebuilt (keeping
 * alignment colons), and body rows are fitted to the header's column count (see {@link fitCells}).
 * Valid tables and code blocks are left byte-for-byte as they were.
 */
export function repairTablesDetailed(markdown: string): TablesRepair {
  const lines = markdownLines(markdown);
  const blocks = findTableBlocks(lines);
  const texts = lines.map((l) => l.text);
  const repaired: number[] = [];
  // Rewrite from the last table backwards so earlier indexes stay valid.
  for (let b = blocks.length - 1; b >= 0; b--) {
    const block = blocks[b]!;
    if (inspect(block, b, lines[block.start]!.line).valid) continue;
    texts.splice(block.start, block.end - block.start + 1, ...rewrite(block));
    repaired.unshift(b);
  }
  return { markdown: repaired.length ? texts.join(lineEnding(markdown)) : markdown, repaired };
}

/** {@link repairTablesDetailed}, returning only the repaired Markdown. */
export function repairTables(markdown: string): string {
  return repairTablesDetailed(markdown).markdown;
}
