/**
 * A rollouts folder, what `dossier train rollouts` writes and `train reward` / `train export`
 * read:
 *
 * | file | content |
 * |---|---|
 * | `rollouts.json` | the manifest: strategy, group size, base seed, strategy options, the policy's models, the shared research options (budgets …), the rows' hash |
 * | `rows.jsonl` | the question rows, one per line |
 * | `runs.jsonl` | one recorded run per line (recorded-run.ts), tagged with its group |
 * | `articles.jsonl`, `articles.jsonl.state.jsonl` | the batch files behind resumption (batch.ts) |
 * | `rewards-<name>.jsonl` | one reward record per run (`train reward`) |
 *
 * A run line cut short by a crash is skipped; a rollout recorded twice (a failed write taken up
 * again) keeps its last line.
 */

import {
  appendFileSync,
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { makeDirs } from "../../store/make-dirs.ts";
import { parseInput } from "../parse-input.ts";
import type { QuestionRow } from "../question-row.ts";
import { type RecordedRun, recordedRunSchema } from "../recorded-run.ts";
import { questionRowsOfJsonl } from "../rows/rows-file.ts";

/** The files of a rollouts folder. */
export const ROLLOUT_FILES = {
  manifest: "rollouts.json",
  rows: "rows.jsonl",
  runs: "runs.jsonl",
  articles: "articles.jsonl",
} as const;

/** The manifest of a rollouts folder. */
export const rolloutManifestSchema = z.object({
  version: z.literal(1),
  strategy: z.string().min(1),
  group: z.number().int().positive(),
  seed: z.number().int().nonnegative(),
  strategyOptions: z.record(z.string(), z.unknown()),
  /** The policy: `provider:model` of each model role the runs resolve (absent in older folders). */
  policy: z.record(z.string(), z.string()).optional(),
  /** The research options every rollout shares: budgets, sources, corpus, language, steps. */
  research: z.record(z.string(), z.unknown()).optional(),
  /** SHA-256 of the question rows, as written to rows.jsonl. */
  rowsSha256: z.string().optional(),
  createdAt: z.string(),
});
/** The manifest of a rollouts folder. */
export type RolloutManifest = z.infer<typeof rolloutManifestSchema>;

/** The path of a file of the folder. */
export function rolloutPath(dir: string, file: keyof typeof ROLLOUT_FILES): string {
  return join(dir, ROLLOUT_FILES[file]);
}

/** The reward records' file of reward `name` (a registered reward's name). */
export function rewardsPath(dir: string, name: string): string {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new DossierError("INPUT_INVALID", `not a reward name: ${name}`);
  return join(dir, `rewards-${name}.jsonl`);
}

/** The folder's manifest, or null when it has none. */
export function readManifest(dir: string): RolloutManifest | null {
  const path = rolloutPath(dir, "manifest");
  if (!existsSync(path)) return null;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new DossierError("INPUT_INVALID", `${path}: not JSON`);
  }
  return parseInput(rolloutManifestSchema, value, path);
}

/** Writes the manifest and the rows (creating the folder). */
export function writeRolloutSetup(
  dir: string,
  manifest: RolloutManifest,
  rows: readonly QuestionRow[],
): void {
  makeDirs(dir);
  writeFileSync(rolloutPath(dir, "manifest"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(rolloutPath(dir, "rows"), rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
}

/** The folder's question rows. */
export function readRolloutRows(dir: string): QuestionRow[] {
  const path = rolloutPath(dir, "rows");
  if (!existsSync(path))
    throw new DossierError("NOT_FOUND", `no rollouts in ${dir} (no ${ROLLOUT_FILES.rows})`);
  return questionRowsOfJsonl(readFileSync(path, "utf8"), path);
}

/** Appends a recorded run. */
export function appendRolloutRun(dir: string, run: RecordedRun): void {
  const path = rolloutPath(dir, "runs");
  // A line cut short by a crash is ended first, so this run starts a line of its own (the cut
  // line stays unreadable and is skipped on reading; the run it held is run again).
  const torn = existsSync(path) && !endsWithNewline(path);
  appendFileSync(path, `${torn ? "\n" : ""}${JSON.stringify(run)}\n`);
}

/** True when the file is empty or its last byte is a newline. */
function endsWithNewline(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const { size } = fstatSync(fd);
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

const groupKey = (run: RecordedRun) => `${run.group?.id ?? run.row.id}#${run.group?.index ?? run.runId}`;

/**
 * The folder's recorded runs, one per rollout, ordered by question (as the rows file lists
 * them) then group index. NOT_FOUND when the folder holds none.
 */
export function readRolloutRuns(dir: string): RecordedRun[] {
  const path = rolloutPath(dir, "runs");
  if (!existsSync(path))
    throw new DossierError("NOT_FOUND", `no recorded runs in ${dir} (no ${ROLLOUT_FILES.runs})`);
  const byRollout = new Map<string, RecordedRun>();
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (!line.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return; // a line cut short by a crash
      }
      const run = parseInput(recordedRunSchema, value, `${path}:${i + 1}`);
      byRollout.set(groupKey(run), run);
    });
  if (byRollout.size === 0) throw new DossierError("NOT_FOUND", `no recorded runs in ${path}`);
  const order = new Map<string, number>();
  if (existsSync(rolloutPath(dir, "rows")))
    readRolloutRows(dir).forEach((row, i) => {
      order.set(row.id, i);
    });
  return [...byRollout.values()].sort(
    (a, b) =>
      (order.get(a.row.id) ?? Number.MAX_SAFE_INTEGER) - (order.get(b.row.id) ?? Number.MAX_SAFE_INTEGER) ||
      (a.group?.index ?? 0) - (b.group?.index ?? 0),
  );
}
