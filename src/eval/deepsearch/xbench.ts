/**
 * Loader of xbench-DeepSearch (`../shared/benchmarks/xbench_deepsearch/DeepSearch-<2505|2510>.csv`).
 * The files stay encrypted on disk and are decrypted in memory only: each of `prompt`, `answer`
 * and `reference_steps` is base64 of the UTF-8 plaintext XOR-ed with the row's `canary` string's
 * UTF-8 bytes repeated to the plaintext's length (the key is the canary itself, not a hash of it).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DossierError } from "../../core/errors.ts";
import { parseCsvRecords } from "./csv.ts";
import type { DeepsearchQuestion } from "./question-files.ts";

/** Versions of the benchmark. */
export const XBENCH_VERSIONS = ["2505", "2510"] as const;
/** A version of the benchmark. */
export type XbenchVersion = (typeof XBENCH_VERSIONS)[number];

/** XOR-decrypts one field: base64-decode, XOR with the key bytes repeated, decode UTF-8. */
export function xorDecrypt(field: string, key: string): string {
  const data = Buffer.from(field, "base64");
  const keyBytes = Buffer.from(key, "utf8");
  if (keyBytes.length === 0) throw new DossierError("INPUT_INVALID", "empty decryption key");
  const out = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i]! ^ keyBytes[i % keyBytes.length]!;
  return new TextDecoder("utf-8", { fatal: true }).decode(out);
}

/** The inverse of {@link xorDecrypt} (used by tests to build fixtures). */
export function xorEncrypt(plaintext: string, key: string): string {
  const data = Buffer.from(plaintext, "utf8");
  const keyBytes = Buffer.from(key, "utf8");
  const out = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i]! ^ keyBytes[i % keyBytes.length]!;
  return out.toString("base64");
}

/** Decrypts the rows of an xbench CSV text. */
export function parseXbenchCsv(text: string, source = "xbench"): DeepsearchQuestion[] {
  return parseCsvRecords(text).map((row, i) => {
    const { id, prompt, answer, canary } = row;
    if (!id || !prompt || !answer || !canary) {
      throw new DossierError("INPUT_INVALID", `${source}: row ${i + 2} lacks id, prompt, answer or canary`);
    }
    try {
      const steps = row.reference_steps ? xorDecrypt(row.reference_steps, canary) : undefined;
      return {
        id,
        question: xorDecrypt(prompt, canary),
        answer: xorDecrypt(answer, canary),
        ...(steps === undefined ? {} : { referenceSteps: steps }),
      };
    } catch (error) {
      throw new DossierError("INPUT_INVALID", `${source}: row ${i + 2} (id ${id}) does not decrypt`, {
        cause: error,
      });
    }
  });
}

/** The CSV path of a version under the benchmarks folder. */
export function xbenchPath(benchmarksDir: string, version: XbenchVersion): string {
  return join(benchmarksDir, "xbench_deepsearch", `DeepSearch-${version}.csv`);
}

/** Loads and decrypts one version of xbench-DeepSearch from `benchmarksDir`. */
export function loadXbench(benchmarksDir: string, version: XbenchVersion): DeepsearchQuestion[] {
  const path = xbenchPath(benchmarksDir, version);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new DossierError("NOT_FOUND", `xbench-DeepSearch ${version} not found at ${path}`, {
      details: { path },
      cause: error,
    });
  }
  return parseXbenchCsv(text, path);
}
