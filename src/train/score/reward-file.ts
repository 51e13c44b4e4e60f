/**
 * The rewards files of a rollouts folder (`rewards-<name>.jsonl`, one reward record per run):
 * reading one back, finding the folder's only one when no reward is named, and joining the
 * records to their runs.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { DossierError } from "../../core/errors.ts";
import { parseInput } from "../parse-input.ts";
import type { RecordedRun } from "../recorded-run.ts";
import { rewardsPath } from "../rollouts/rollout-dir.ts";
import { type RewardRecord, rewardRecordSchema } from "./score-runs.ts";

/** The reward records in `path` (none when it does not exist); a line cut short is skipped. */
export function readRewardRecords(path: string): RewardRecord[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .flatMap((line, i) => {
      if (!line.trim()) return [];
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return [];
      }
      return [parseInput(rewardRecordSchema, value, `${path}:${i + 1}`)];
    });
}

/** The names of the rewards a folder holds records of. */
export function rewardNamesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((f) => /^rewards-([a-z][a-z0-9-]*)\.jsonl$/.exec(f)?.[1])
    .filter((n): n is string => n !== undefined)
    .sort();
}

/**
 * The reward records of the folder for reward `name`, or of its only rewards file when no name
 * is given; NOT_FOUND when there are none, INPUT_INVALID when the choice is ambiguous.
 */
export function folderRewards(dir: string, name?: string): { name: string; records: RewardRecord[] } {
  let chosen = name;
  if (chosen === undefined) {
    const names = rewardNamesIn(dir);
    if (names.length === 0)
      throw new DossierError(
        "NOT_FOUND",
        `no rewards in ${dir}: run dossier train reward ${dir} --reward NAME first`,
      );
    if (names.length > 1)
      throw new DossierError(
        "INPUT_INVALID",
        `${dir} holds rewards of ${names.join(", ")}: choose one with --reward`,
      );
    chosen = names[0]!;
  }
  const records = readRewardRecords(rewardsPath(dir, chosen));
  if (records.length === 0)
    throw new DossierError(
      "NOT_FOUND",
      `no ${chosen} rewards in ${dir}: run dossier train reward ${dir} --reward ${chosen} first`,
    );
  return { name: chosen, records };
}

/** Each run with its reward record; runs without one are left out and counted. */
export function joinRewards(
  runs: readonly RecordedRun[],
  records: readonly RewardRecord[],
): { scored: { run: RecordedRun; record: RewardRecord }[]; unscored: string[] } {
  const byRun = new Map(records.map((r) => [r.runId, r]));
  const scored: { run: RecordedRun; record: RewardRecord }[] = [];
  const unscored: string[] = [];
  for (const run of runs) {
    const record = byRun.get(run.runId);
    if (record) scored.push({ run, record });
    else unscored.push(run.runId);
  }
  return { scored, unscored };
}
