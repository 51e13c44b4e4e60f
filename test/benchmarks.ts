/**
 * The published benchmark files some tests check against. They live outside the repository,
 * in `../shared/benchmarks` next to it, and are not always present: a test that needs one
 * asks {@link haveBenchmarkFile} and is skipped with a visible notice when it is missing.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The benchmarks folder, `../shared/benchmarks` relative to the repository. */
export const BENCHMARKS_DIR = fileURLToPath(new URL("../../shared/benchmarks", import.meta.url));

/** A path inside the benchmarks folder. */
export function benchmarkPath(...parts: string[]): string {
  return join(BENCHMARKS_DIR, ...parts);
}

/**
 * True when `path` exists. Otherwise prints a notice naming what is skipped and the missing
 * file, so a run without the benchmarks says so instead of passing quietly; use the answer in
 * `it.skipIf(!have)` or `describe.skipIf(!have)`.
 */
export function haveBenchmarkFile(path: string, skipped: string): boolean {
  if (existsSync(path)) return true;
  console.warn(`skipped: ${skipped} — benchmark file not found: ${path} (../shared/benchmarks)`);
  return false;
}
