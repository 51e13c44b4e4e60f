/**
 * Reading a benchmark file for the row readers: its text, or a NOT_FOUND error naming what
 * was looked for and where.
 */

import { readFileSync } from "node:fs";
import { DossierError } from "../../core/errors.ts";

/** The UTF-8 text of `path`; a missing or unreadable file is NOT_FOUND naming `what`. */
export function readBenchmarkText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new DossierError("NOT_FOUND", `${what} not found at ${path}`, { details: { path }, cause: error });
  }
}
