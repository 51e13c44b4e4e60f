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

describe("smtl: what a trainer sees at the edges", () => {
  it("names each format break by the call or tool call that made it", async () => {
    const broken = {
      ...run,
      calls: [
        ...run.calls,
        fixtureCall({ callId: "L3", step: 3, formatErrors: ["not JSON", "no tool name"] }),
      ],
      toolCalls: [
        ...run.toolCalls,
        fixtureTool({ callId: "T2", ok: false, error: { code: "INPUT_INVALID", message: "bad args" } }),
      ],
    };
    expect((await smtlReward(broken, { judge: judge(true) })).formatBreaks).toEqual([
      "L3: not JSON",
      "T2: INPUT_INVALID",
    ]);
  });

  it("does not count a successful tool call as a format break", async () => {
    const ok = { ...run, toolCalls: [...run.toolCalls, fixtureTool({ callId: "T3", scope: "smtl" })] };
    expect((await smtlReward(ok, { judge: judge(true) })).reward).toBe(1);
  });

  it("hands the scope filter an empty scope for unscoped calls, which a filter on smtl leaves out", async () => {
    const unscoped = {
      ...run,
      calls: [...run.calls, fixtureCall({ callId: "L4", step: 4, formatErrors: ["x"] })],
      toolCalls: [fixtureTool({ callId: "T4", ok: false, error: { code: "INPUT_INVALID", message: "x" } })],
    };
    const seen: string[] = [];
    const scope = (s: string) => {
      seen.push(s);
      return s.startsWith("smtl");
    };
    expect((await smtlReward(unscoped, { judge: judge(true) }, { scope })).reward).toBe(1);
    expect(seen).toContain("");
  });

  it("scores a blank answer 0 without asking the judge, and judges the report when there is no short answer", async () => {
    const yes = judge(true);
    expect((await smtlReward({ ...run, answer: " \n " }, { judge: yes })).reward).toBe(0);
    expect(yes).not.toHaveBeenCalled();
    expect((await smtlReward({ ...run, answer: null, report: "# Turin" }, { judge: yes })).reward).toBe(1);
    expect(yes).toHaveBeenCalledWith(expect.objectContaining({ response: "# Turin" }));
  });

  it("names the row when the reference answer is missing", async () => {
    await expect(
      smtlReward({ ...run, row: fixtureRow({ id: "q9" }) }, { judge: judge(true) }),
    ).rejects.toThrow(/row q9: .*reference answer/);
  });
});
