import { describe, expect, it } from "vitest";
import { instantClock } from "../../../test/scripted/clocks.ts";
import { scriptedRegistry } from "../../../test/scripted/harness.ts";
import { scriptedModel } from "../../../test/scripted/scripted-model.ts";
import { LlmClient } from "../../llm/client.ts";
import { evaluateAnswers } from "./answer-judge.ts";

describe("evaluateAnswers", () => {
  it("judges answered questions, counts unanswered as incorrect and judge failures apart", async () => {
    const judge = scriptedModel([
      { match: "Q-ONE", reply: { json: { rationale: "same year", judgement: "correct" } } },
      { match: "Q-TWO", reply: "The answer looks right to me." },
      {
        match: /Q-TWO[\s\S]*could not be used/,
        reply: { json: { rationale: "different city", judgement: "incorrect" } },
      },
      { match: "Q-FOUR", reply: { json: { rationale: "ok", judgement: "maybe" } } },
      { match: "Q-FOUR", reply: "?" },
      { match: "Q-FOUR", reply: "?" },
      { match: "Q-FIVE", reply: { json: { rationale: "equivalent", judgement: "correct" } } },
    ]);
    const client = new LlmClient({ registry: scriptedRegistry({ default: judge }), clock: instantClock() });
    const questions = ["ONE", "TWO", "THREE", "FOUR", "FIVE"].map((n) => ({
      id: n,
      question: `Q-${n}`,
      answer: `A-${n}`,
    }));
    const answers = new Map<string, string | null>([
      ["ONE", "1998"],
      ["TWO", "Paris"],
      ["THREE", null],
      ["FOUR", "x"],
      ["FIVE", "y"],
    ]);
    const { results, summary } = await evaluateAnswers(client, questions, answers, { concurrency: 5 });
    expect(results.map((r) => r.judgement)).toEqual(["correct", "incorrect", "unanswered", null, "correct"]);
    expect(results[3]!.error?.code).toBe("STRUCTURED_OUTPUT_FAILED");
    // pass@1 = correct / (questions − judge failures) = 2 / 4.
    expect(summary).toEqual({
      questions: 5,
      answered: 4,
      unanswered: 1,
      correct: 2,
      incorrect: 2,
      judgeFailures: 1,
      passAt1: 0.5,
      judge: { total: 4, ok: 3, failed: 1, calls: 7, formatErrors: 4 },
    });
    expect(judge.calls.find((c) => c.prompt.includes("Q-ONE"))!.prompt).toContain(
      "<reference_answer>\nA-ONE",
    );
  });
});
