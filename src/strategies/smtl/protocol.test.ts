import { describe, expect, it } from "vitest";
import {
  answerProblem,
  evidenceId,
  goalId,
  planFrom,
  refinePlan,
  refineReplySchema,
  type SmtlPlan,
  stepReplySchema,
} from "./protocol.ts";

const draft = (n: number) => ({
  goal: `goal ${n}`,
  successCriterion: `criterion ${n}`,
  paths: [`path ${n}`],
});
const plan = (goals: number): SmtlPlan => ({
  goals: planFrom(Array.from({ length: goals }, (_, i) => draft(i + 1))),
  nextPaths: [],
});

describe("smtl protocol", () => {
  it("reads evidence and goal ids the way models write them", () => {
    expect(["E4", "[E4]", " e4 ", "E04"].map(evidenceId)).toEqual(["E4", "E4", "E4", "E04"]);
    expect(["G2", "g2", "Goal 2", "G02"].map(goalId)).toEqual(["G2", "G2", "G2", "G2"]);
  });

  it("accepts an answer only when every goal is verified by retrieved evidence", () => {
    const retrieved = new Set(["E1", "E2", "E3"]);
    const answer = (
      verification: { goal: string; evidence: string[] }[],
      citations = ["[E1]"],
      text = "X",
    ) => ({
      text,
      citations,
      verification,
    });
    expect(
      answerProblem(
        answer([
          { goal: "g1", evidence: ["E1"] },
          { goal: "G2", evidence: ["[E2]"] },
        ]),
        plan(2),
        retrieved,
      ),
    ).toBeNull();
    expect(answerProblem(answer([{ goal: "G1", evidence: ["E1"] }]), plan(2), retrieved)).toMatch(
      /goal\(s\) G2 are not verified/,
    );
    expect(answerProblem(answer([{ goal: "G1", evidence: ["E9"] }]), plan(1), retrieved)).toMatch(
      /never retrieved: E9/,
    );
    expect(
      answerProblem(answer([{ goal: "G1", evidence: ["E1"] }], [], "X [E7]"), plan(1), retrieved),
    ).toMatch(/never retrieved: E7/);
  });

  it("applies a refinement: statuses and analyses by goal id, new goals up to five, unknown ids ignored", () => {
    const reply = refineReplySchema.parse({
      recap: "r",
      goals: [
        { id: "g1", status: "completed", analysis: "done [E1]" },
        { id: "G9", status: "blocked", analysis: "no such goal" },
      ],
      newGoals: [draft(5), draft(6), draft(7)],
      nextPaths: ["p"],
    });
    const refined = refinePlan(plan(3), reply);
    expect(refined.goals.map((g) => [g.id, g.status])).toEqual([
      ["G1", "completed"],
      ["G2", "in-progress"],
      ["G3", "in-progress"],
      ["G4", "in-progress"],
      ["G5", "in-progress"],
    ]);
    expect(refined.goals[0]!.analysis).toBe("done [E1]");
    expect(refined).toMatchObject({ recap: "r", nextPaths: ["p"] });
  });

  it("holds at most 10 calls per step, each for a tool the run allows", () => {
    const schema = stepReplySchema(["web_search", "read_page"]);
    const call = { tool: "web_search", query: "a query" };
    expect(schema.safeParse({ thought: "t", calls: Array(10).fill(call) }).success).toBe(true);
    expect(schema.safeParse({ thought: "t", calls: Array(11).fill(call) }).success).toBe(false);
    expect(schema.safeParse({ thought: "t", calls: [{ tool: "local_search", query: "q q" }] }).success).toBe(
      false,
    );
    expect(
      schema.safeParse({ thought: "t", calls: [{ tool: "crawl_page", url: "notaurl", goal: "g g" }] })
        .success,
    ).toBe(false);
  });
});
