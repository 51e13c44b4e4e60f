/**
 * The rules a reply of smtl's JSON protocol must pass beyond its schema (protocol.ts,
 * research-protocol.ts): ids as models write them, an answer that cites only evidence the run
 * retrieved and verifies every goal with it, a subtask answer that cites such evidence, and the
 * numbering of the plan's goals as refinements add to it.
 */

import { describe, expect, it } from "vitest";
import {
  answerProblem,
  evidenceId,
  evidenceIdsIn,
  goalId,
  planFrom,
  refinePlan,
  refineReplySchema,
  type SmtlPlan,
} from "./protocol.ts";
import { subtaskAnswerProblem } from "./research-protocol.ts";

const draft = (n: number) => ({
  goal: `goal ${n}`,
  successCriterion: `criterion ${n}`,
  paths: [`path ${n}`],
});
const plan = (goals: number): SmtlPlan => ({
  goals: planFrom(Array.from({ length: goals }, (_, i) => draft(i + 1))),
  nextPaths: [],
});

describe("ids as models write them", () => {
  it("evidence and goal ids in canonical form; text without an id kept, trimmed and upper-cased", () => {
    expect(evidenceId(" e12 ")).toBe("E12");
    expect(evidenceId(" see note ")).toBe("SEE NOTE");
    expect(goalId("goal 12")).toBe("G12");
    expect(goalId(" first ")).toBe("FIRST");
  });

  it("the evidence ids a text names, once each, whole words only", () => {
    expect(evidenceIdsIn("Built in 1903 [E12], rebuilt [e4, E12]; XE5 and E7b are not ids.")).toEqual([
      "E12",
      "E4",
    ]);
  });
});

describe("when an answer is accepted", () => {
  const retrieved = new Set(["E1", "E2"]);
  const answer = (text: string, citations: string[], verification = [{ goal: "G1", evidence: ["E1"] }]) => ({
    text,
    citations,
    verification,
  });

  it("it cites some evidence, in its citations or its text", () => {
    expect(answerProblem(answer("Mara Vell", []), plan(1), retrieved)).toBe("the answer cites no evidence");
    expect(answerProblem(answer("Mara Vell [E2]", []), plan(1), retrieved)).toBeNull();
  });

  it("names every unknown id once, from its citations, text and verification", () => {
    expect(
      answerProblem(
        answer("Mara Vell [E8] [E9]", ["E8"], [{ goal: "G1", evidence: ["E7", "E1"] }]),
        plan(1),
        retrieved,
      ),
    ).toBe("the answer cites evidence that was never retrieved: E8, E9, E7");
  });

  it("a goal listed without evidence is not verified", () => {
    expect(
      answerProblem(answer("Mara Vell [E1]", ["E1"], [{ goal: "G1", evidence: [] }]), plan(1), retrieved),
    ).toBe("goal(s) G1 are not verified by retrieved evidence; keep working on them before answering");
    expect(answerProblem(answer("Mara Vell [E1]", ["E1"], []), plan(2), retrieved)).toBe(
      "goal(s) G1, G2 are not verified by retrieved evidence; keep working on them before answering",
    );
  });
});

describe("the plan's goals", () => {
  it("are numbered from the offset, in progress", () => {
    expect(planFrom([draft(1)], 3)).toEqual([
      { id: "G4", goal: "goal 1", successCriterion: "criterion 1", paths: ["path 1"], status: "in-progress" },
    ]);
  });

  it("a refinement numbers new goals after the highest id and adds none to a full plan", () => {
    const gapped: SmtlPlan = {
      goals: [plan(3).goals[0]!, { ...plan(3).goals[2]!, id: "G7" }],
      nextPaths: [],
    };
    const reply = refineReplySchema.parse({ recap: "r", goals: [], newGoals: [draft(9)], nextPaths: ["p"] });
    expect(refinePlan(gapped, reply).goals.map((g) => g.id)).toEqual(["G1", "G7", "G8"]);
    const odd: SmtlPlan = { goals: [{ ...plan(1).goals[0]!, id: "extra" }], nextPaths: [] };
    expect(refinePlan(odd, reply).goals.map((g) => g.id)).toEqual(["extra", "G1"]);
    expect(refinePlan(plan(5), reply).goals).toHaveLength(5);
  });
});

describe("when a subtask answer is accepted", () => {
  it("a subtask answer cites evidence the run retrieved, and some", () => {
    const retrieved = new Set(["E1"]);
    expect(subtaskAnswerProblem({ text: "Mara Vell", citations: ["e1"] }, retrieved)).toBeNull();
    expect(subtaskAnswerProblem({ text: "Mara Vell [E1]", citations: [] }, retrieved)).toBeNull();
    expect(subtaskAnswerProblem({ text: "Mara Vell", citations: [] }, retrieved)).toBe(
      "the subtask answer cites no evidence",
    );
    expect(subtaskAnswerProblem({ text: "Mara Vell [E3]", citations: ["E2", "E3"] }, retrieved)).toBe(
      "the subtask answer cites evidence that was never retrieved: E2, E3",
    );
  });
});
