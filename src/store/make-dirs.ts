/**
 * Creates a folder and its missing parents one level at a time. Node's `mkdirSync(path,
 * { recursive: true })` loops forever where a parent exists but refuses new entries with
 * ENOENT (`/proc`); this fails with that error instead.
 */

import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";

/** Creates `path` and its missing parents; throws the first error (never loops). */
export function makeDirs(path: string): void {
  const missing: string[] = [];
  let cursor = path;
  while (!existsSync(cursor)) {
    missing.unshift(cursor);
    const parent = dirname(cursor);
    if (parent === cursor) break;
    cursor = parent;
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir);
    } catch (error) {
      // Made meanwhile by another writer: fine.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}
