import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import type { RecordedRun } from "../recorded-run.ts";
import {
  appendRolloutRun,
  readRolloutRuns,
  rewardsPath,
  rolloutPath,
  writeRolloutSetup,
} from "../rollouts/rollout-dir.ts";
import type { RewardRecord } from "../score/score-runs.ts";
import { fixtureCall, fixtureRow, fixtureRun } from "../test-fixtures.ts";
import { exportRollouts } from "./export-rollouts.ts";
import { rlRecordSchema } from "./rl.ts";
import { sftRecordSchema } from "./sft.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "dossier-rollouts-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const rows = [
  fixtureRow({ id: "q1", answer: "Paris" }),
  fixtureRow({ id: "q2", prompt: "Second question?", answer: "Rome" }),
];

function run(id: string, q: number, index: number, answer: string): RecordedRun {
  return fixtureRun({
    runId: id,
    row: rows[q - 1]!,
    group: { id: rows[q - 1]!.id, index },
    answer,
    calls: [fixtureCall({ runId: id, callId: "L1", step: 1, completion: `{"answer": "${answer}"}` })],
  });
}

function record(r: RecordedRun, reward: number, advantage: number | null, dropped = false): RewardRecord {
  return {
    runId: r.runId,
    questionId: r.row.id,
    groupId: r.row.id,
    groupIndex: r.group!.index,
    strategy: r.strategy,
    rewardName: "smtl",
    reward,
    components: { correct: reward },
    details: {},
    advantage,
    dropped,
  };
}

/** q1: rewards 1, 0 (advantages from `train reward`: 0.7, −0.7); q2: both 1, dropped. */
function folder() {
  const runs = [
    run("b1", 2, 1, "Rome"),
    run("a0", 1, 0, "Paris"),
    run("a1", 1, 1, "Lyon"),
    run("b0", 2, 0, "Rome"),
  ];
  writeRolloutSetup(
    dir,
    {
      version: 1,
      strategy: "smtl",
      group: 2,
      seed: 0,
      strategyOptions: {},
      createdAt: "2026-01-01T00:00:00Z",
    },
    rows,
  );
  appendRolloutRun(dir, run("a1", 1, 1, "an earlier recording"));
  for (const r of runs) appendRolloutRun(dir, r);
  appendFileSync(rolloutPath(dir, "runs"), '{"runId": "cut sh');
  const records = [
    record(runs[1]!, 1, 0.7),
    record(runs[2]!, 0, -0.7),
    record(runs[0]!, 1, null, true),
    record(runs[3]!, 1, null, true),
  ];
  writeFileSync(rewardsPath(dir, "smtl"), records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  return runs;
}

const jsonl = (content: string | Uint8Array) =>
  String(content)
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as unknown);

describe("a rollouts folder", () => {
  it("reads its runs once per rollout (the last line wins), in the rows' order, past a cut line", () => {
    folder();
    const runs = readRolloutRuns(dir);
    expect(runs.map((r) => r.runId)).toEqual(["a0", "a1", "b0", "b1"]);
    expect(runs[1]!.answer).toBe("Lyon");
  });

  it("appends after a line cut short by a crash on a line of its own", () => {
    folder();
    appendRolloutRun(dir, run("a1", 1, 1, "Nice"));
    const runs = readRolloutRuns(dir);
    expect(runs.map((r) => r.runId)).toEqual(["a0", "a1", "b0", "b1"]);
    expect(runs[1]!.answer).toBe("Nice");
  });

  it("exports rl samples with the advantages train reward computed, leaving out dropped groups", () => {
    folder();
    const result = exportRollouts(dir, { format: "rl" });
    const samples = jsonl(result.content).map((l) => rlRecordSchema.parse(l));
    expect(samples.map((s) => [s.run_id, s.reward, s.advantage])).toEqual([
      ["a0", 1, 0.7],
      ["a1", 0, -0.7],
    ]);
    expect(result.skipped.map((s) => s.runId)).toEqual(["b0", "b1"]);
    // Asked for, the advantage is computed again: RLOO over (1, 0), and q2's (1, 1) gives 0.
    const again = jsonl(exportRollouts(dir, { format: "rl", advantage: "rloo" }).content).map((l) =>
      rlRecordSchema.parse(l),
    );
    expect(again.map((s) => [s.run_id, s.advantage])).toEqual([
      ["a0", 1],
      ["a1", -1],
      ["b0", 0],
      ["b1", 0],
    ]);
  });

  it("keeps the estimator the rewards were scored with when --dapo computes the advantages again", () => {
    const runs = folder();
    const rloo = [
      { ...record(runs[1]!, 1, 1), estimator: "rloo" as const },
      { ...record(runs[2]!, 0, -1), estimator: "rloo" as const },
      { ...record(runs[0]!, 1, null, true), estimator: "rloo" as const },
      { ...record(runs[3]!, 1, null, true), estimator: "rloo" as const },
    ];
    writeFileSync(rewardsPath(dir, "smtl"), rloo.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const dapo = jsonl(exportRollouts(dir, { format: "rl", dropUniformGroups: true }).content).map((l) =>
      rlRecordSchema.parse(l),
    );
    // RLOO over (1, 0) is (1, −1); GRPO would give ±0.7071.
    expect(dapo.map((s) => [s.run_id, s.advantage])).toEqual([
      ["a0", 1],
      ["a1", -1],
    ]);
    const mixed = [{ ...rloo[0]!, estimator: "grpo" as const }, ...rloo.slice(1)];
    writeFileSync(rewardsPath(dir, "smtl"), mixed.map((r) => `${JSON.stringify(r)}\n`).join(""));
    expect(() => exportRollouts(dir, { format: "rl", dropUniformGroups: true })).toThrow(
      /mixes GRPO and RLOO/,
    );
  });

  it("exports dpo pairs of one question, Self-SFT's best run per question, and verl's questions", () => {
    folder();
    const dpo = exportRollouts(dir, { format: "dpo" });
    expect(jsonl(dpo.content)).toEqual([
      expect.objectContaining({
        chosen: [{ role: "assistant", content: "Paris" }],
        rejected: [{ role: "assistant", content: "Lyon" }],
        question_id: "q1",
      }),
    ]);
    const sft = exportRollouts(dir, { format: "sft", topK: 1 });
    const conversations = jsonl(sft.content).map((l) => sftRecordSchema.parse(l));
    expect(conversations.map((c) => c.messages.at(-1)!.content)).toEqual([
      '{"answer": "Paris"}',
      '{"answer": "Rome"}',
    ]);
    expect(sft.reward).toBe("smtl");
    const verl = exportRollouts(dir, { format: "verl" });
    expect(verl.records).toBe(2);
    expect(verl.content).toBeInstanceOf(Uint8Array);
  });

  it("refuses an unknown format, and asks for rewards it does not have or cannot choose", () => {
    const expectError = (fn: () => unknown, code: string, text: string) => {
      try {
        fn();
        expect.unreachable();
      } catch (error) {
        expect(isDossierError(error, code as never)).toBe(true);
        expect((error as Error).message).toContain(text);
      }
    };
    expectError(() => exportRollouts(dir, { format: "csv" }), "INPUT_INVALID", 'unknown export format "csv"');
    folder();
    rmSync(rewardsPath(dir, "smtl"));
    expectError(() => exportRollouts(dir, { format: "rl" }), "NOT_FOUND", "dossier train reward");
    writeFileSync(rewardsPath(dir, "smtl"), "");
    writeFileSync(rewardsPath(dir, "warp"), "");
    expectError(() => exportRollouts(dir, { format: "dpo" }), "INPUT_INVALID", "choose one with --reward");
  });
});
