import { describe, expect, it, vi } from "vitest";
import { DossierError } from "../../core/errors.ts";
import { fixtureCall, fixtureRow, fixtureRun, fixtureTool } from "../test-fixtures.ts";
import type { AnswerJudge } from "./answer-judge.ts";
import { searchLambdas } from "./minddr-lambdas.ts";
import {
  entityCoverage,
  type MinddrSearchReward,
  matchText,
  minddrSearchReward,
  searchBatchMetrics,
  searchComposite,
} from "./minddr-search.ts";

const judge = (correct: boolean) => vi.fn<AnswerJudge>(async () => ({ correct, rationale: String(correct) }));
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof DossierError
      ? [error.code, error.message]
      : ["not a DossierError", String(error)];
  }
  return ["no error", ""];
};

describe("minddr-search: entity matching", () => {
  it("matches on NFKC, lower-cased, whitespace-collapsed, trimmed text", () => {
    expect(matchText("  Ａda \n\t LOVELACE  ")).toBe("ada lovelace");
    expect(entityCoverage(["Turin "], [["born in Turin."]]).firstStep).toEqual([0]);
  });

  it("matches an entity's special characters literally", () => {
    expect(entityCoverage(["C++"], [["the c language"], ["learning C++"]]).firstStep).toEqual([1]);
  });

  it("bounds a one-letter entity on both sides", () => {
    expect(entityCoverage(["X"], [["Xerox copies"], ["maxim"], ["bought X in 2022"]]).firstStep).toEqual([2]);
  });

  it("refuses an empty entity list and an r_tool/r_format length mismatch", () => {
    expect(refusal(() => entityCoverage([], [["text"]]))).toEqual([
      "INPUT_INVALID",
      "entity coverage needs at least one entity",
    ]);
    const lambdas = searchLambdas(0.6, 0.3, 0.1);
    expect(refusal(() => searchComposite({ orm: 1, prm: 1, tool: [0.1], format: [] }, lambdas))).toEqual([
      "INTERNAL",
      "r_tool and r_format must cover the same steps",
    ]);
    expect(
      refusal(() =>
        searchComposite({ orm: null, prm: 1, tool: [], format: [] }, searchLambdas(0.2, 0.1, 0.2)),
      ),
    ).toEqual(["INPUT_INVALID", "λ_ORM > 0 needs R_ORM (a reference answer)"]);
  });
});

describe("minddr-search over edge trajectories", () => {
  const judges = () => [judge(true), judge(true), judge(true)];

  it("names the row that has no entities", async () => {
    await expect(
      minddrSearchReward(fixtureRun({ row: fixtureRow({ id: "q9", entities: [] }) }), { judges: judges() }),
    ).rejects.toThrow("row q9: minddr-search needs the row's entities (Eq. 8)");
  });

  it("fails a step when any one of its tool calls fails", async () => {
    const run = fixtureRun({
      row: fixtureRow({ entities: ["Turin"] }),
      calls: [fixtureCall({ callId: "L1", scope: "search:A", step: 1 })],
      toolCalls: [
        fixtureTool({ callId: "T1", scope: "search:A", step: 1 }),
        fixtureTool({ callId: "T2", scope: "search:A", step: 1, ok: false }),
      ],
    });
    const r = await minddrSearchReward(run, { judges: judges() });
    expect(r.steps.map((s) => [s.toolOk, s.tool])).toEqual([[false, -0.1]]);
    expect(r.figures).toEqual({ toolSuccess: 0, formatCompliance: 1 });
  });

  it("scores a trajectory without steps 0 on the step terms, with no figure for the schedule", async () => {
    const run = fixtureRun({ row: fixtureRow({ entities: ["Turin"] }), answer: "Turin" });
    const r = await minddrSearchReward(run, { judges: judges() });
    expect(r.components).toEqual({ tool: 0, format: 0, prm: 0, orm: null });
    expect(r.figures).toEqual({ toolSuccess: null, formatCompliance: null });
    expect([r.reward, r.steps, r.votes]).toEqual([0, [], []]);
    expect(r.lambdas).toEqual({ tool: 0.6, format: 0.3, prm: 0.1, orm: 0 });
  });

  it("asks no judge for a blank answer, and reports the λ in force", async () => {
    const silent = judges();
    const lambdas = searchLambdas(0.2, 0.1, 0.2);
    const run = fixtureRun({ row: fixtureRow({ entities: ["Turin"], answer: "Turin" }), answer: " \n " });
    const r = await minddrSearchReward(run, { judges: silent }, { lambdas });
    expect([r.components.orm, r.votes, r.lambdas]).toEqual([0, [], lambdas]);
    for (const j of silent) expect(j).not.toHaveBeenCalled();
  });
});

describe("a batch's figures for the λ schedule", () => {
  const reward = (toolSuccess: number | null, orm: number | null): MinddrSearchReward => ({
    reward: 0,
    components: { tool: 0, format: 0, prm: 0.5, orm },
    lambdas: searchLambdas(0.6, 0.3, 0.1),
    steps: [],
    entities: [],
    votes: [],
    figures: { toolSuccess, formatCompliance: 1 },
  });

  it("leaves out trajectories without a figure, and gives null when none has it", () => {
    expect(searchBatchMetrics([reward(0.5, null), reward(null, null), reward(1, null)])).toEqual({
      toolSuccess: 0.75,
      formatCompliance: 1,
      prmCoverage: 0.5,
      ormAccuracy: null,
    });
    expect(searchBatchMetrics([])).toEqual({
      toolSuccess: null,
      formatCompliance: null,
      prmCoverage: null,
      ormAccuracy: null,
    });
  });
});
