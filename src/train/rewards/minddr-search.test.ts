import { describe, expect, it, vi } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import { fixtureCall, fixtureRow, fixtureRun, fixtureTool } from "../test-fixtures.ts";
import type { AnswerJudge } from "./answer-judge.ts";
import { searchLambdas } from "./minddr-lambdas.ts";
import {
  entityCoverage,
  formatReward,
  minddrSearchReward,
  searchBatchMetrics,
  searchComposite,
  toolRewards,
} from "./minddr-search.ts";

const judge = (correct: boolean): AnswerJudge =>
  vi.fn(async () => ({ correct, rationale: correct ? "same" : "differs" }));

/*
 * Two DeepSearch agents and a writer (left out by the scope filter). Steps in order of their
 * first call, with c_t, format validity and the hand-computed Eq. 6 / Eq. 7 values:
 *
 *   #  agent  step  tool calls    c_t   r_tool                     format  r_format
 *   0  T-1    1     T1 ok         1     +0.1                       ok      +0.1
 *   1  T-2    1     T4 fail       0     −0.1 (agent's 1st failure) ok      +0.1
 *   2  T-1    2     T2 fail       0     −0.1 (after a success)     ok      +0.1
 *   3  T-2    2     —             —      0                         ok      +0.1
 *   4  T-1    3     T3 fail       0     −0.2 (after a failure)     bad     −0.2
 *   5  T-2    3     T5 fail       0     −0.2 (last tool step of T-2 failed) ok +0.1
 *   6  T-1    4     —             —      0                         ok      +0.1
 *
 * T = 7, Σ r_tool = 0.1 − 0.1 − 0.1 + 0 − 0.2 − 0.2 + 0 = −0.5, Σ r_format = 6 × 0.1 − 0.2 = 0.4.
 * Entities: "Turin" in E1 retrieved by T1 (step #0); "Lovelace Hall" in T-1's reasoning at
 * step 2 (#2, written "lovelace  HALL"); "Babbage" in T5's observation (#5); "Ada Byron" only
 * in the writer's text, which is outside the scopes → R_PRM = 3/4.
 */
const run = fixtureRun({
  strategy: "minddr",
  row: fixtureRow({ answer: "Turin", entities: ["Lovelace Hall", "Turin", "Ada Byron", "Babbage"] }),
  answer: "It is Turin.",
  calls: [
    fixtureCall({ callId: "L1", scope: "search:T-1", step: 1, completion: "search the museum" }),
    fixtureCall({ callId: "L2", scope: "search:T-2", step: 1 }),
    fixtureCall({ callId: "L3", scope: "search:T-1", step: 2, completion: "so lovelace  HALL is key" }),
    fixtureCall({ callId: "L4", scope: "search:T-2", step: 2 }),
    fixtureCall({ callId: "L5", scope: "search:T-1", step: 3, formatErrors: ["not JSON"] }),
    fixtureCall({ callId: "L6", scope: "search:T-2", step: 3 }),
    fixtureCall({ callId: "L7", scope: "search:T-1", step: 4, completion: "done" }),
    fixtureCall({ callId: "L8", scope: "writer", step: 1, role: "writer", completion: "Ada Byron wrote" }),
  ],
  toolCalls: [
    fixtureTool({ callId: "T1", scope: "search:T-1", step: 1 }),
    fixtureTool({ callId: "T4", scope: "search:T-2", step: 1, ok: false }),
    fixtureTool({ callId: "T2", scope: "search:T-1", step: 2, ok: false }),
    fixtureTool({ callId: "T3", scope: "search:T-1", step: 3, ok: false }),
    fixtureTool({
      callId: "T5",
      scope: "search:T-2",
      step: 3,
      ok: false,
      observation: "Charles Babbage visited",
    }),
  ],
  evidence: [
    {
      id: "E1",
      sourceId: "S1",
      text: "The museum is in Turin.",
      retrievedBy: { tool: "web_search", callId: "T1" },
    },
  ],
});
const searchAgents = (scope: string) => scope.startsWith("search:");

describe("minddr-search: the step rewards", () => {
  it("Eq. 6: +0.1 success, −0.2 failure after a failure, −0.1 isolated failure, 0 without a tool call", () => {
    expect(toolRewards([true, false, false, null, false, true, false])).toEqual([
      0.1, -0.1, -0.2, 0, -0.2, 0.1, -0.1,
    ]);
    expect(toolRewards([false])).toEqual([-0.1]);
  });

  it("Eq. 7: +0.1 well-formed, −0.2 malformed", () => {
    expect([formatReward(true), formatReward(false)]).toEqual([0.1, -0.2]);
  });

  it("Eq. 8: the share of entities seen in any step's reasoning or observations", () => {
    // NFKC folds the full-width "Ａ", case and runs of spaces are ignored; "x" appears nowhere.
    const { coverage, firstStep } = entityCoverage(["Ａda", "x"], [["no"], ["an ADA  here"]]);
    expect(coverage).toBe(0.5);
    expect(firstStep).toEqual([1, null]);
  });

  it("Eq. 8: an entity is found as a whole word, not inside another (CJK needs no spaces)", () => {
    const steps = [["the chair of the board"], ["AI (artificial intelligence) in 2024"], ["北京市的人口"]];
    expect(entityCoverage(["AI"], steps).firstStep).toEqual([1]);
    expect(entityCoverage(["air"], steps).firstStep).toEqual([null]);
    expect(entityCoverage(["北京", "2024", "202"], steps).firstStep).toEqual([2, 1, null]);
    expect(entityCoverage(["C++"], [["learning c++ fast"]]).firstStep).toEqual([0]);
  });

  it("Eq. 9: the λ-weighted sum with the step rewards averaged over T", () => {
    // 0.5·1 + 0.2·0.5 + (1/2)[(0.2·0.1 + 0.1·0.1) + (0.2·(−0.1) + 0.1·(−0.2))] = 0.5 + 0.1 + (0.03 − 0.04)/2 = 0.595
    const parts = { orm: 1, prm: 0.5, tool: [0.1, -0.1], format: [0.1, -0.2] };
    expect(searchComposite(parts, searchLambdas(0.2, 0.1, 0.2))).toBeCloseTo(0.595, 12);
    expect(
      searchComposite({ orm: null, prm: 1, tool: [], format: [] }, searchLambdas(0.6, 0.3, 0.1)),
    ).toBeCloseTo(0.1, 12);
  });
});

describe("minddr-search over a recorded run", () => {
  it("computes every component and the composite by hand (initial λ = 0.6, 0.3, 0.1, 0)", async () => {
    const judges = [judge(true), judge(false), judge(true)];
    const r = await minddrSearchReward(run, { judges }, { scope: searchAgents });
    expect(r.steps.map((s) => [s.scope, s.step, s.tool, s.format])).toEqual([
      ["search:T-1", 1, 0.1, 0.1],
      ["search:T-2", 1, -0.1, 0.1],
      ["search:T-1", 2, -0.1, 0.1],
      ["search:T-2", 2, 0, 0.1],
      ["search:T-1", 3, -0.2, -0.2],
      ["search:T-2", 3, -0.2, 0.1],
      ["search:T-1", 4, 0, 0.1],
    ]);
    expect(r.components.tool).toBeCloseTo(-0.5 / 7, 12);
    expect(r.components.format).toBeCloseTo(0.4 / 7, 12);
    expect(r.components.prm).toBe(0.75);
    expect(r.entities).toEqual([
      { entity: "Lovelace Hall", step: 2 },
      { entity: "Turin", step: 0 },
      { entity: "Ada Byron", step: null },
      { entity: "Babbage", step: 5 },
    ]);
    expect(r.components.orm).toBe(1); // 2 of 3 judges
    // R = 0·1 + 0.1·0.75 + 0.6·(−0.5/7) + 0.3·(0.4/7) = 0.075 − 0.18/7 = 0.0492857142857…
    expect(r.reward).toBeCloseTo(0.075 - 0.18 / 7, 12);
    expect(r.votes.map((v) => v.correct)).toEqual([true, false, true]);
    for (const j of judges)
      expect(j).toHaveBeenCalledWith({
        question: run.row.prompt,
        reference: "Turin",
        response: "It is Turin.",
      });
    // tool success: 1 of 5 tool steps; format: 6 of 7 steps
    expect(r.figures).toEqual({ toolSuccess: 1 / 5, formatCompliance: 6 / 7 });
  });

  it("uses the λ in force: phase 3 (0.2, 0.1, 0.2, 0.5) gives 0.5 + 0.15 − 0.06/7", async () => {
    const r = await minddrSearchReward(
      run,
      { judges: [judge(true), judge(true), judge(false)] },
      { scope: searchAgents, lambdas: searchLambdas(0.2, 0.1, 0.2) },
    );
    // 0.5·1 + 0.2·0.75 + 0.2·(−0.5/7) + 0.1·(0.4/7) = 0.65 − 0.1/7 + 0.04/7
    expect(r.reward).toBeCloseTo(0.65 - 0.06 / 7, 12);
  });

  it("scores R_ORM 0 when the majority says incorrect, and without asking when there is no answer", async () => {
    const wrong = await minddrSearchReward(
      run,
      { judges: [judge(false), judge(true), judge(false)] },
      { scope: searchAgents },
    );
    expect(wrong.components.orm).toBe(0);
    const silent = [judge(true), judge(true), judge(true)];
    const none = await minddrSearchReward({ ...run, answer: null }, { judges: silent });
    expect(none.components.orm).toBe(0);
    for (const j of silent) expect(j).not.toHaveBeenCalled();
  });

  it("refuses a row without entities, λ_ORM > 0 without a reference answer, and an even jury", async () => {
    const code = (p: Promise<unknown>) =>
      p.then(
        () => "resolved",
        (e) => (isDossierError(e) ? e.code : String(e)),
      );
    const judges = [judge(true), judge(true), judge(true)];
    expect(await code(minddrSearchReward({ ...run, row: fixtureRow({ answer: "Turin" }) }, { judges }))).toBe(
      "INPUT_INVALID",
    );
    const noAnswer = { ...run, row: fixtureRow({ entities: ["Turin"] }) };
    expect((await minddrSearchReward(noAnswer, { judges })).components.orm).toBeNull();
    expect(
      await code(minddrSearchReward(noAnswer, { judges }, { lambdas: searchLambdas(0.2, 0.1, 0.2) })),
    ).toBe("INPUT_INVALID");
    expect(await code(minddrSearchReward(run, { judges: [judge(true), judge(true)] }))).toBe("INPUT_INVALID");
  });

  it("averages a batch's figures for the λ schedule", async () => {
    const a = await minddrSearchReward(
      run,
      { judges: [judge(true), judge(true), judge(true)] },
      { scope: searchAgents },
    );
    const b = await minddrSearchReward({ ...run, answer: null }, { judges: [] }, { scope: searchAgents });
    expect(searchBatchMetrics([a, b])).toEqual({
      toolSuccess: 1 / 5,
      formatCompliance: 6 / 7,
      prmCoverage: 0.75,
      ormAccuracy: 0.5, // (1 + 0) / 2
    });
  });
});
