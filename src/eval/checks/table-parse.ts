/**
 * Finding GFM pipe tables in Markdown (outside code blocks) and splitting their rows into cells.
 */

import type { MarkdownLine } from "../../core/markdown.ts";

/** A run of lines that forms (or tries to form) a pipe table. */
export interface TableBlock {
  /** Index of the first line in the line list. */
  start: number;
  /** Index of the last line (inclusive). */
  end: number;
  /** The lines' text. */
  rows: string[];
  /** Leading whitespace of the first line, reused when a table is rewritten. */
  indent: string;
}

/** True when `text` has a `|` that is not escaped. */
function hasPipe(text: string): boolean {
  return /(?<!\\)\|/.test(text);
}

/** True for a line made only of pipes, dashes, colons, `=`, `+` and spaces, with at least one dash or `=`. */
export function isSeparatorLike(text: string): boolean {
  const trimmed = text.trim();
  return (
    /^[|:\-=+\s]+$/.test(trimmed) && /[-=]/.test(trimmed) && (hasPipe(trimmed) || /^:?-+:?$/.test(trimmed))
  );
}

/** True for a valid GFM delimiter row: every cell is `---`, `:---`, `---:` or `:---:`. */
export function isValidSeparator(text: string): boolean {
  const cells = splitCells(text);
  return cells.length > 0 && cells.every((cell) => /^:?-+:?$/.test(cell));
}

/** The cells of a table row: outer pipes dropped, split on unescaped pipes, trimmed. */
export function splitCells(text: string): string[] {
  let body = text.trim();
  if (body.startsWith("|")) body = body.slice(1);
  if (/(?<!\\)\|$/.test(body)) body = body.slice(0, -1);
  return body.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

/**
 * The table blocks of a document: maximal runs of consecutive non-code lines with a pipe,
 * at least two lines long, whose second line is a delimiter(-like) row or whose first line
 * starts with `|`. A run of prose lines that merely contain pipes is not a table.
 */
export function findTableBlocks(lines: readonly MarkdownLine[]): TableBlock[] {
  const blocks: TableBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const first = lines[i]!;
    if (first.inCode || !hasPipe(first.text) || first.text.trim() === "") {
      i++;
      continue;
    }
    let end = i;
    while (end + 1 < lines.length && !lines[end + 1]!.inCode && hasPipe(lines[end + 1]!.text)) end++;
    const rows = lines.slice(i, end + 1).map((l) => l.text);
    const leadingPipe = first.text.trim().startsWith("|");
    const secondIsSeparator = rows.length > 1 && isSeparatorLike(rows[1]!);
    if (rows.length >= 2 && (leadingPipe || secondIsSeparator)) {
      blocks.push({ start: i, end, rows, indent: /^\s*/.exec(first.text)![0] });
    }
    i = end + 1;
  }
  return blocks;
}
