/**
 * Reading and writing JSON Lines files validated with zod: every bad line is reported with
 * its file and line number.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { makeDirs } from "../../store/make-dirs.ts";

/** Parses JSONL text: one value per non-blank line, each validated by `schema`. */
export function parseJsonl<T>(text: string, schema: z.ZodType<T>, source = "input"): T[] {
  const out: T[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new DossierError("INPUT_INVALID", `${source}:${i + 1}: not JSON (${(error as Error).message})`, {
        details: { source, line: i + 1 },
      });
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new DossierError(
        "INPUT_INVALID",
        `${source}:${i + 1}: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, "; ")}`,
        { details: { source, line: i + 1 } },
      );
    }
    out.push(parsed.data);
  });
  return out;
}

/** Reads and validates a JSONL file; a missing file is INPUT_INVALID naming the path. */
export function readJsonl<T>(path: string, schema: z.ZodType<T>): T[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new DossierError("INPUT_INVALID", `cannot read ${path}: ${(error as Error).message}`, {
      details: { path },
      cause: error,
    });
  }
  return parseJsonl(text, schema, path);
}

/** One JSON value per line, non-ASCII kept as is (like Python's `ensure_ascii=False`). */
export function toJsonl(values: readonly unknown[]): string {
  return values.map((v) => `${JSON.stringify(v)}\n`).join("");
}

/** Writes `values` as JSONL, creating the directory. */
export function writeJsonl(path: string, values: readonly unknown[]): void {
  makeDirs(dirname(path));
  writeFileSync(path, toJsonl(values));
}
