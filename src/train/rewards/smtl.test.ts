import { describe, expect, it, vi } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import { fixtureCall, fixtureRow, fixtureRun, fixtureTool } from "../test-fixtures.ts";
import type { AnswerJudge } from "./answer-judge.ts";
import { smtlReward } from "./smtl.ts";

const judge = (correct: boolean) => vi.fn<AnswerJudge>(async () => ({ correct, rationale: "r" }));
const run = fixtureRun({
  row: fixtureRow({ answer: "Turin" }),
  answer: "Turin",
  calls: [
    fixtureCall({ callId: "L1", step: 1, scope: "smtl" }),
    fixtureCall({ callId: "L2", step: 2, scope: "smtl" }),
  ],
  toolCalls: [fixtureTool({ callId: "T1", scope: "smtl", step: 1, ok: false })],
});

describe("smtl: 1 when the judge finds the answer correct, else 0; 0 when a tool call broke the format (§5.2)", () => {
  it("is 1 for a correct answer (a failed tool call is not a format break) and 0 for a wrong one", async () => {
    const yes = judge(true);
    expect(await smtlReward(run, { judge: yes })).toEqual({
      reward: 1,
      components: { correct: 1, formatValid: 1 },
      formatBreaks: [],
      verdict: { correct: true, rationale: "r" },
    });
    expect(yes).toHaveBeenCalledWith({ question: run.row.prompt, reference: "Turin", response: "Turin" });
    expect((await smtlReward(run, { judge: judge(false) })).reward).toBe(0);
  });

  it("is 0 without asking the judge when a call's output broke the format or a tool refused malformed arguments", async () => {
    for (const broken of [
      {
        ...run,
        calls: [
          ...run.calls,
          fixtureCall({ callId: "L3", step: 3, scope: "smtl", formatErrors: ["bad tool call"] }),
        ],
      },
      {
        ...run,
        toolCalls: [
          fixtureTool({
            callId: "T2",
            scope: "smtl",
            ok: false,
            error: { code: "INPUT_INVALID", message: "x" },
          }),
        ],
      },
    ]) {
      const yes = judge(true);
      const r = await smtlReward(broken, { judge: yes });
      expect([r.reward, r.components]).toEqual([0, { correct: null, formatValid: 0 }]);
      expect(r.formatBreaks).toHaveLength(1);
      expect(yes).not.toHaveBeenCalled();
    }
  });

  it("only checks the scopes asked for, is 0 without an answer and needs the reference answer", async () => {
    const other = {
      ...run,
      calls: [...run.calls, fixtureCall({ callId: "L9", step: 1, scope: "judge", formatErrors: ["x"] })],
    };
    expect((await smtlReward(other, { judge: judge(true) }, { scope: (s) => s === "smtl" })).reward).toBe(1);
    const yes = judge(true);
    expect((await smtlReward({ ...run, answer: null }, { judge: yes })).reward).toBe(0);
    expect(yes).not.toHaveBeenCalled();
    await expect(smtlReward({ ...run, row: fixtureRow() }, { judge: yes })).rejects.toSatisfy((e) =>
      isDossierError(e, "INPUT_INVALID"),
    );
  });
});
