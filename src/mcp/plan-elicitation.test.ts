import {
  type ElicitRequestFormParams,
  ElicitRequestFormParamsSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { DossierError } from "../core/errors.ts";
import type { PlanAnswer } from "../core/plan-edit.ts";
import { reviewPlanSchema } from "../core/review-plan.ts";
import type { PlanReviewView } from "../runtime/plan-review.ts";
import { answerOfForm, canElicit, ELICIT_ATTEMPTS, elicitReview, reviewRequest } from "./plan-elicitation.ts";

const plan = reviewPlanSchema.parse({
  strategy: "minddr",
  kind: "subtasks",
  items: [
    { id: "T-1", title: "Aspect 1", description: "Goal 1" },
    { id: "T-2", title: "Aspect 2" },
  ],
  limits: { minItems: 1, maxItems: 8, maxChildren: 0 },
});
const view: PlanReviewView = {
  runId: "run-1",
  status: "awaiting-review",
  stage: "pending",
  plan,
  proposed: plan,
  changes: null,
  requestedAt: "2026-01-01T00:00:00.000Z",
  deadline: "2026-01-02T00:00:00.000Z",
  answeredAt: null,
  reason: null,
};

describe("plan review through elicitation", () => {
  it("asks with a form of flat primitive fields: the decision, the plan's lines, a reason", () => {
    const request = reviewRequest(view, "How is \u001b[31mtopic\u001b[0m adoption changing?");
    expect(ElicitRequestFormParamsSchema.safeParse(request).success).toBe(true);
    const { properties, required } = request.requestedSchema;
    expect(Object.keys(properties)).toEqual(["decision", "plan", "reason"]);
    for (const field of Object.values(properties)) expect(field.type).toBe("string");
    expect(properties.decision).toMatchObject({ enum: ["approve", "reject"], default: "approve" });
    expect(properties.plan).toMatchObject({ default: "[T-1] Aspect 1\n[T-2] Aspect 2" });
    expect(required).toEqual(["decision"]);
    // The message shows the plan and the deadline; the question's control characters are gone.
    expect(request.message).toContain("1. [T-1] Aspect 1\n   Goal 1\n2. [T-2] Aspect 2");
    expect(request.message).toContain("the run fails at 2026-01-02T00:00:00.000Z");
    expect(request.message).not.toContain("\u001b");
    expect(canElicit({ elicitation: { form: {} } })).toBe(true);
    expect(canElicit({ elicitation: { url: {} } } as never)).toBe(false);
    expect(canElicit(undefined)).toBe(false);
  });

  it("reads a form: approve unchanged, edit changed, reject with a reason; declined answers nothing", () => {
    const form = (content: Record<string, string>) => answerOfForm({ action: "accept", content }, plan);
    expect(form({ decision: "approve", plan: "[T-1] Aspect 1\n[T-2] Aspect 2\n" })).toEqual({
      action: "approve",
    });
    expect(form({ decision: "approve" })).toEqual({ action: "approve" });
    // The same items written another way change nothing either.
    expect(form({ decision: "approve", plan: "- [T-1] Aspect 1\n\n- [T-2]   Aspect 2" })).toEqual({
      action: "approve",
    });
    expect(form({ decision: "approve", plan: "[T-2] Aspect 2\nAspect 3" })).toEqual({
      action: "edit",
      plan: { items: [{ id: "T-2", title: "Aspect 2" }, { title: "Aspect 3" }] },
    });
    expect(form({ decision: "reject", reason: " too broad ", plan: "x" })).toEqual({
      action: "reject",
      reason: "too broad",
    });
    expect(form({ decision: "maybe" })).toBeNull();
    expect(answerOfForm({ action: "decline" }, plan)).toBeNull();
    expect(answerOfForm({ action: "cancel" }, plan)).toBeNull();
  });

  it("asks again with the reason an edit was refused, the user's lines kept, a few times at most", async () => {
    const asked: ElicitRequestFormParams[] = [];
    const submitted: PlanAnswer[] = [];
    const lines = ["[T-9] Nope", "[T-1] Aspect 1\nAspect 3"];
    const outcome = await elicitReview({
      view,
      question: "Q?",
      ask: async (params) => {
        asked.push(params);
        return { action: "accept", content: { decision: "approve", plan: lines[asked.length - 1]! } };
      },
      submit: async (answer) => {
        submitted.push(answer);
        if (submitted.length === 1)
          throw new DossierError("INPUT_INVALID", 'the edited plan is not valid: no item "T-9"');
        return "resumed";
      },
    });
    expect(outcome).toEqual({ answered: true, answer: submitted[1], outcome: "resumed" });
    expect(submitted[1]).toEqual({
      action: "edit",
      plan: { items: [{ id: "T-1", title: "Aspect 1" }, { title: "Aspect 3" }] },
    });
    expect(asked[1]!.message).toMatch(
      /^Your last answer was refused: the edited plan is not valid: no item "T-9"/,
    );
    expect(asked[1]!.requestedSchema.properties.plan).toMatchObject({ default: "[T-9] Nope" });

    let tries = 0;
    const refused = await elicitReview({
      view,
      question: "Q?",
      ask: async () => ({ action: "accept", content: { decision: "approve", plan: "[T-9] Nope" } }),
      submit: async () => {
        tries++;
        throw new DossierError("INPUT_INVALID", "no item T-9");
      },
    });
    expect(tries).toBe(ELICIT_ATTEMPTS);
    expect(refused).toEqual({
      answered: false,
      why: `the edited plan was refused ${ELICIT_ATTEMPTS} times: no item T-9`,
    });
  });

  it("leaves the review unanswered when the form is declined or cannot be asked, and lets other errors through", async () => {
    const never = async () => {
      throw new Error("not to be called");
    };
    expect(
      await elicitReview({ view, question: "Q?", ask: async () => ({ action: "decline" }), submit: never }),
    ).toEqual({
      answered: false,
      why: "the review form was declined",
    });
    expect(
      await elicitReview({
        view,
        question: "Q?",
        ask: async () => {
          throw new Error("Request timed out");
        },
        submit: never,
      }),
    ).toEqual({ answered: false, why: "the review could not be asked: Request timed out" });
    await expect(
      elicitReview({
        view,
        question: "Q?",
        ask: async () => ({ action: "accept", content: { decision: "approve" } }),
        submit: async () => {
          throw new DossierError("CONFLICT", "answered by another process");
        },
      }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
  });
});
