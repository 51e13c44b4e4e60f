/**
 * Writing an export to a file: JSON Lines for `sft`, `dpo` and `rl` (one record per line,
 * non-ASCII kept as is), bytes for `verl`'s Parquet. The folder is created when missing.
 */

import { writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { makeDirs } from "../../store/make-dirs.ts";

/** JSON Lines text: one JSON value per line, each line ended by a newline. */
export function jsonlText(records: readonly unknown[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join("");
}

/** Writes text or bytes to `path`, creating its folder. */
export function writeExportFile(path: string, content: string | Uint8Array): void {
  makeDirs(dirname(path));
  writeFileSync(path, content);
}
