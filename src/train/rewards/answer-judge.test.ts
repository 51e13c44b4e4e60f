import { describe, expect, it, vi } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import { type AnswerJudge, majorityVerdict } from "./answer-judge.ts";

const judge = (correct: boolean) => vi.fn<AnswerJudge>(async () => ({ correct, rationale: String(correct) }));
const input = { question: "q", reference: "Turin", response: "Turin" };

describe("majority of judges", () => {
  it("is correct when more than half of the verdicts are, and keeps every verdict", async () => {
    expect((await majorityVerdict([judge(true), judge(false), judge(true)], input)).correct).toBe(true);
    const no = await majorityVerdict([judge(false), judge(false), judge(true)], input);
    expect(no).toEqual({
      correct: false,
      votes: [
        { correct: false, rationale: "false" },
        { correct: false, rationale: "false" },
        { correct: true, rationale: "true" },
      ],
    });
    expect((await majorityVerdict([judge(true)], input)).correct).toBe(true);
  });

  it("asks every judge the same question and refuses an even or empty jury", async () => {
    const judges = [judge(true), judge(true), judge(true)];
    await majorityVerdict(judges, input);
    for (const j of judges) expect(j).toHaveBeenCalledExactlyOnceWith(input);
    await expect(majorityVerdict([judge(true), judge(false)], input)).rejects.toThrow(/odd number/);
    await expect(majorityVerdict([], input)).rejects.toThrow(/odd number/);
    await expect(majorityVerdict([judge(true), judge(true)], input)).rejects.toSatisfy((e) =>
      isDossierError(e, "INPUT_INVALID"),
    );
  });

  it("rejects when a judge fails rather than counting a missing vote", async () => {
    const failing: AnswerJudge = async () => {
      throw new Error("judge down");
    };
    await expect(majorityVerdict([judge(true), failing, judge(true)], input)).rejects.toThrow(/judge down/);
  });
});
