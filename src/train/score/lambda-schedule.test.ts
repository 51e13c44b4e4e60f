import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { onceEach } from "../judges/llm-judges.ts";
import type { AnswerJudge } from "../rewards/answer-judge.ts";
import { INITIAL_SEARCH_LAMBDAS, searchLambdas } from "../rewards/minddr-lambdas.ts";
import { fixtureCall, fixtureRow, fixtureRun } from "../test-fixtures.ts";
import { advanceLambdaState, parseLambdas, readLambdaState } from "./lambda-schedule-file.ts";
import { type RewardRecord, scoreRuns } from "./score-runs.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "dossier-lambdas-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const never: AnswerJudge = async () => {
  throw new Error("no judge may be asked");
};

describe("MindDR's λ schedule across scorings", () => {
  it("starts at phase 0, advances when a batch meets the threshold, and is read back by the next scoring", () => {
    const path = join(dir, "schedule.json");
    const first = readLambdaState(path);
    expect([first.phase, first.lambdas]).toEqual([0, INITIAL_SEARCH_LAMBDAS]);
    const low = advanceLambdaState(path, first, { toolSuccess: 0.5, formatCompliance: 1, prmCoverage: 0.2 });
    expect([low.phase, low.batches]).toEqual([0, 1]);
    const high = advanceLambdaState(path, readLambdaState(path), {
      toolSuccess: 0.97,
      formatCompliance: 1,
      prmCoverage: 0.2,
    });
    expect(high.phase).toBe(1);
    const again = readLambdaState(path);
    expect(again).toEqual(high);
    expect(again.lambdas).toEqual(searchLambdas(0.2, 0.3, 0.5));
    expect(JSON.parse(readFileSync(path, "utf8")).transitions).toHaveLength(1);
  });

  it("parses --lambdas and refuses coefficients outside the paper's bounds", () => {
    expect(parseLambdas("0.2, 0.1, 0.2")).toEqual({ tool: 0.2, format: 0.1, prm: 0.2, orm: 0.5 });
    expect(() => parseLambdas("0.1,0.1")).toThrow(/λ_tool,λ_format,λ_PRM/);
    expect(() => parseLambdas("0.1,0.1,0.1")).toThrow(/outside \[0, 0.5\]/);
  });

  it("combines a kept minddr-search reward again with new coefficients, asking no judge", async () => {
    const run = fixtureRun({
      runId: "r1",
      row: fixtureRow({ id: "q1", entities: ["Paris"] }),
      group: { id: "q1", index: 0 },
      calls: [fixtureCall({ runId: "r1", callId: "L1", step: 1 })],
    });
    const before: RewardRecord = {
      runId: "r1",
      questionId: "q1",
      groupId: "q1",
      groupIndex: 0,
      strategy: "smtl",
      rewardName: "minddr-search",
      reward: 0.2,
      components: { tool: 0.1, format: 0.1, prm: 1, orm: 1 },
      details: { lambdas: { ...INITIAL_SEARCH_LAMBDAS }, steps: [{ tool: 0.1, format: 0.1 }] },
      advantage: 0,
      dropped: false,
    };
    const lambdas = searchLambdas(0.2, 0.1, 0.2);
    const [record] = await scoreRuns([run], {
      reward: "minddr-search",
      judges: { orm: [never, never, never] },
      earlier: new Map([["r1", before]]),
      lambdas,
    });
    // 0.5·1 + 0.2·1 + (0.2·0.1 + 0.1·0.1) = 0.73
    expect(record!.reward).toBeCloseTo(0.73, 12);
    expect(record!.details.lambdas).toEqual(lambdas);
  });

  it("asks a judge once for the same input, even three judges at once", async () => {
    let calls = 0;
    const judge = onceEach(async () => {
      calls++;
      return { correct: true, rationale: "" };
    });
    const input = { question: "q", reference: "a", response: "a" };
    await Promise.all([judge(input), judge(input), judge(input)]);
    await judge({ ...input, response: "b" });
    expect(calls).toBe(2);
  });
});
