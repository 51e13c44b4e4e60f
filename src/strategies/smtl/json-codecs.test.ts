/**
 * smtl's JSON protocol in both modes (json-protocol.ts and the codecs of json-answer.ts,
 * json-research.ts and json-research-refine.ts), with the model and the tools as fakes of the run
 * context: what each call renders (system prompt of the call's kind, schema, the conversation with
 * the last message as the prompt, 4,096 output tokens, the user's sampling only), what a reply
 * decodes to, which replies are refused with which reason, and what a refusal costs.
 */

import { describe, expect, it } from "vitest";
import type { StructuredRequest } from "../../llm/structured.ts";
import { jsonInstruction } from "../../llm/structured.ts";
import { estimatePromptTokens } from "../../llm/token-estimate.ts";
import { jsonAnswerProtocol } from "./json-answer.ts";
import { jsonResearchProtocol } from "./json-research.ts";
import { RESEARCH_REFINE_REQUEST, subtaskRefineSchema } from "./json-research-refine.ts";
import { agentSystem, REFINE_REQUEST, taskMessage } from "./prompts.ts";
import { planReplySchema, refineReplySchema, stepReplySchema } from "./protocol.ts";
import { researchSystem, researchTask } from "./research-prompts.ts";
import { subtaskListSchema, subtaskStepSchema } from "./research-protocol.ts";
import { smtlLoop } from "./run.ts";
import type { SmtlOptions } from "./state.ts";
import { fakeRun, type ScriptedAnswer, smtlOptions } from "./test-fixtures.ts";

const QUERY = "Which architect designed station 3?";
const TOOLS = ["web_search", "read_page"] as const;
const search = (query: string) => ({ tool: "web_search", query });
const PLAN = {
  thought: "one goal",
  goals: [{ goal: "find the architect", successCriterion: "a page names one", paths: ["search"] }],
  calls: [search("station 3")],
};
const answer = (id: string) => ({
  thought: "done",
  answer: { text: `Mara Vell [${id}]`, citations: [id], verification: [{ goal: "G1", evidence: [id] }] },
});
const LIST = { analysis: "one strand", subtasks: [{ title: "Architect", goal: "who designed station 3" }] };
const subtaskAnswer = (id: string) => ({
  analysis: "answerable",
  subtaskAnswer: { text: `Mara Vell [${id}]`, citations: [id] },
});

/** What a structured call sent, its schema as the model reads it. */
const sent = (r: StructuredRequest<unknown>) => {
  const { accept, schema, ...rest } = r;
  return { ...rest, schema: jsonInstruction(schema) };
};

async function runJson(
  mode: "answer" | "research",
  script: ScriptedAnswer[],
  options: Partial<SmtlOptions> = {},
) {
  const run = fakeRun(script, { query: QUERY });
  const protocol = (
    mode === "answer" ? jsonAnswerProtocol : jsonResearchProtocol
  ) as typeof jsonAnswerProtocol;
  const s = protocol.start(run.ctx, smtlOptions(options));
  await smtlLoop(s, protocol);
  const warnings = run.of("warning").map((w) => `${w.code}: ${w.message}`);
  return { run, s, warnings, protocol };
}

const answerSystem = (
  mode: "plan" | "step" | "refine",
  options: { maxSteps?: number; refineEvery?: number } = {},
) =>
  agentSystem({
    tools: TOOLS,
    currentDate: "2026-03-01",
    language: "en",
    maxSteps: options.maxSteps ?? 100,
    refineEvery: options.refineEvery ?? 5,
    mode,
  });
const researchSys = (mode: "subtasks" | "subtask" | "refine", maxSteps = 100) =>
  researchSystem({ tools: TOOLS, currentDate: "2026-03-01", language: "en", maxSteps, mode });

describe("the JSON answer mode's calls", () => {
  it("the plan call, then step calls over the conversation, each with its kind's system prompt and schema", async () => {
    const { run, s } = await runJson("answer", [{ value: PLAN }, { value: answer("E1") }], {
      maxSteps: 7,
      refineEvery: 3,
    });
    expect(sent(run.structured[0]!)).toEqual({
      role: "searcher",
      system: answerSystem("plan", { maxSteps: 7, refineEvery: 3 }),
      schema: jsonInstruction(planReplySchema(TOOLS)),
      messages: [],
      prompt: taskMessage(QUERY, null, 0),
      maxOutputTokens: 4096,
      maxRepairs: 0,
    });
    const step = sent(run.structured[1]!);
    expect(step).toMatchObject({
      system: answerSystem("step", { maxSteps: 7, refineEvery: 3 }),
      schema: jsonInstruction(stepReplySchema(TOOLS)),
      maxOutputTokens: 4096,
    });
    expect(step.messages).toEqual(s.talk.turns.slice(0, 2));
    expect(step.prompt).toBe(s.talk.turns[2]!.content);
    expect(s.answer).toEqual(answer("E1").answer);
  });

  it("sends the user's temperature and top-p, and no sampling of its own", async () => {
    const plain = await runJson("answer", [{ value: PLAN }, { value: answer("E1") }]);
    expect(plain.run.structured[0]).not.toHaveProperty("temperature");
    expect(plain.run.structured[0]).not.toHaveProperty("topP");
    const set = await runJson("answer", [{ value: PLAN }, { value: answer("E1") }], {
      temperature: 0.2,
      topP: 0.8,
    });
    expect(set.run.structured[1]).toMatchObject({ temperature: 0.2, topP: 0.8 });
  });

  it("the refinement call asks with the last message and the refinement schema", async () => {
    const refine = {
      recap: "r",
      goals: [{ id: "G1", status: "in-progress", analysis: "a [E1]" }],
      nextPaths: ["p"],
    };
    const { run } = await runJson("answer", [{ value: PLAN }, { value: refine }, { value: answer("E1") }], {
      refineEvery: 1,
    });
    const call = sent(run.structured[1]!);
    expect(call).toMatchObject({
      system: answerSystem("refine", { refineEvery: 1 }),
      schema: jsonInstruction(refineReplySchema),
    });
    expect(call.prompt).toMatch(new RegExp(`\\n\\n${REFINE_REQUEST.replace(/[()]/g, "\\$&")}$`));
  });
});

describe("the JSON answer mode's replies", () => {
  const refusal = async (step: unknown) => {
    const { run, warnings, s } = await runJson("answer", [
      { value: PLAN },
      { value: step },
      { value: answer("E1") },
    ]);
    return { warning: warnings[0], next: run.structured[2]!.prompt!, s, run };
  };

  it("refuses a reply with both calls and the answer, and tells the model why with the next call", async () => {
    const { warning, next, s } = await refusal({ ...answer("E1"), calls: [search("more")] });
    expect(warning).toBe(
      "MALFORMED_ACTION: malformed action 1 of 10: a reply holds either tool calls or the answer, not both",
    );
    expect(next).toMatch(
      /\n\nYour last reply was rejected: a reply holds either tool calls or the answer, not both\nReply again, following the protocol\.$/,
    );
    expect(s.answer).not.toBeNull();
  });

  it("refuses a reply with neither", async () => {
    const { warning } = await refusal({ thought: "hmm" });
    expect(warning).toBe(
      "MALFORMED_ACTION: malformed action 1 of 10: the reply has neither tool calls nor an answer",
    );
  });

  it("refuses an answer whose goals are not verified by evidence the run retrieved", async () => {
    expect((await refusal(answer("E9"))).warning).toMatch(/never retrieved: E9$/);
    const unverified = {
      thought: "t",
      answer: { text: "Mara Vell [E1]", citations: ["E1"], verification: [] },
    };
    expect((await refusal(unverified)).warning).toMatch(/goal\(s\) G1 are not verified/);
  });

  it("refuses calls that all repeat one already made, naming them", async () => {
    const { warning, run } = await refusal({
      thought: "again",
      calls: [search("station 3"), search("Station 3")],
    });
    expect(warning).toBe(
      'MALFORMED_ACTION: malformed action 1 of 10: every call repeats one already made: web_search "station 3"; web_search "Station 3"',
    );
    const malformed = run.of("trajectory-step").find((t) => t.action === "malformed")!;
    expect(malformed).toMatchObject({
      state: { step: 1 },
      answer: { error: expect.stringMatching(/^every call repeats/) },
    });
  });

  it("cuts a long refusal to 300 characters in the warning and 600 in the trajectory and the next call", async () => {
    const ids = Array.from({ length: 150 }, (_, i) => `E${100 + i}`);
    const unknown = { thought: "t", answer: { text: "Mara Vell", citations: ids, verification: [] } };
    const { run, s } = await runJson("answer", [
      { value: PLAN },
      { value: unknown },
      { value: answer("E1") },
    ]);
    const error = `the answer cites evidence that was never retrieved: ${ids.join(", ")}`;
    expect(run.of("warning")[0]!.message).toBe(`malformed action 1 of 10: ${error.slice(0, 300)}`);
    const malformed = run.of("trajectory-step").find((t) => t.action === "malformed")!;
    expect(malformed.answer).toEqual({ error: error.slice(0, 600) });
    expect(run.structured[2]!.prompt).toContain(`rejected: ${error.slice(0, 600)}\nReply again`);
    expect(s.answer).not.toBeNull();
  });

  it("runs the fresh calls of a step: calls not made before are a step", async () => {
    const { s, run } = await runJson("answer", [
      { value: PLAN },
      { value: { thought: "more", calls: [search("station 3"), search("architect")] } },
      { value: answer("E3") },
    ]);
    expect(s.figures).toMatchObject({ steps: 2, toolCalls: 2, malformedActions: 0 });
    expect(run.of("trajectory-step").map((t) => t.action)).toEqual(["plan", "search", "answer"]);
  });
});

describe("the JSON protocol's limits", () => {
  it("the step cap counts tool steps, not replies", async () => {
    const { s, run } = await runJson(
      "answer",
      [
        { value: PLAN },
        { value: { thought: "hmm" } },
        { value: { thought: "more", calls: [search("architect")] } },
        { value: PLAN },
      ],
      { maxSteps: 2, refineEvery: 2 },
    );
    expect(s.stopReason).toBe("step-cap");
    // No refinement after the last step the cap allows.
    expect(run.structured).toHaveLength(3);
    expect(run.script).toHaveLength(1);
  });

  it("the error budget stops the loop at its last refusal", async () => {
    const { s, run } = await runJson(
      "answer",
      [{ value: PLAN }, { value: { thought: "a" } }, { value: { thought: "b" } }],
      {
        errorBudget: 2,
      },
    );
    expect(s.stopReason).toBe("error-budget");
    expect(run.script).toEqual([]);
  });

  it("no reset before the plan; past the budget a forced refinement, then the reset to the task and the plan", async () => {
    const refine = {
      recap: "r",
      goals: [{ id: "G1", status: "in-progress", analysis: "a [E1]" }],
      nextPaths: ["p"],
    };
    const { run, s } = await runJson(
      "answer",
      [{ value: PLAN }, { value: refine }, { value: answer("E1") }],
      {
        contextTokens: 1,
      },
    );
    expect(run.structured.map((r) => jsonInstruction(r.schema))).toEqual(
      [planReplySchema(TOOLS), refineReplySchema, stepReplySchema(TOOLS)].map((x) => jsonInstruction(x)),
    );
    const [reset] = run.of("context-reset");
    expect(reset).toMatchObject({ step: 1, droppedTurns: 4 });
    const instructions = `${answerSystem("step")}\n\n${jsonInstruction(stepReplySchema(TOOLS))}`;
    const refineCall = run.structured[1]!;
    const results = refineCall.prompt!.slice(0, -`\n\n${REFINE_REQUEST}`.length);
    expect(reset!.tokensBefore).toBe(
      estimatePromptTokens([instructions, ...refineCall.messages!.map((m) => m.content), results]),
    );
    expect(reset!.tokensAfter).toBe(estimatePromptTokens([instructions, run.structured[2]!.prompt!]));
    expect(run.structured[2]!.messages).toEqual([]);
    expect(run.structured[2]!.prompt).toMatch(/^Question:\n<question>/);
    expect(s.answer).not.toBeNull();
  });

  it("a failed refinement before a reset stops the loop with its reason, nothing reset", async () => {
    const { run, s } = await runJson("answer", [{ value: PLAN }, { error: new Error("down") }], {
      contextTokens: 1,
    });
    expect(s.stopReason).toBe("error:error");
    expect(run.of("context-reset")).toEqual([]);
  });

  it("the budget is passed only when the framed conversation holds more than the task and exceeds it", async () => {
    const protocol = jsonAnswerProtocol;
    const state = (contextTokens: number) => {
      const s = protocol.start(fakeRun([]).ctx, smtlOptions({ contextTokens }));
      return s;
    };
    const framed = (contextTokens: number) => {
      const s = state(contextTokens);
      s.plan = { goals: [], nextPaths: [] };
      s.talk.accept("{}");
      s.talk.tell("results");
      return s;
    };
    const probe = framed(1);
    const size = probe.talk.size(`${answerSystem("step")}\n\n${jsonInstruction(stepReplySchema(TOOLS))}`);
    expect(protocol.overContext(framed(size))).toBe(false);
    expect(protocol.overContext(framed(size - 1))).toBe(true);
    const unframed = framed(1);
    unframed.plan = null;
    expect(protocol.overContext(unframed)).toBe(false);
    expect(protocol.overContext(state(1))).toBe(false);
    const fresh = state(1);
    fresh.plan = { goals: [], nextPaths: [] };
    expect(protocol.overContext(fresh)).toBe(false);
  });
});

describe("the JSON research mode's calls and replies", () => {
  it("the subtask list, then steps naming the current subtask, each with its kind's prompt and schema", async () => {
    const { run, s } = await runJson(
      "research",
      [
        { value: LIST },
        { value: { analysis: "search", calls: [search("station 3")] } },
        { value: subtaskAnswer("E1") },
      ],
      { maxSteps: 9 },
    );
    expect(sent(run.structured[0]!)).toEqual({
      role: "searcher",
      system: researchSys("subtasks", 9),
      schema: jsonInstruction(subtaskListSchema),
      messages: [],
      prompt: researchTask(QUERY, null, 0),
      maxOutputTokens: 4096,
      maxRepairs: 0,
    });
    const step = sent(run.structured[1]!);
    expect(step).toMatchObject({
      system: researchSys("subtask", 9),
      schema: jsonInstruction(subtaskStepSchema(TOOLS)),
    });
    expect(step.prompt).toMatch(/\n\nCurrent subtask: S1 Architect$/);
    expect(s.subtasks![0]).toMatchObject({ answer: "Mara Vell [E1]", citations: ["E1"] });
  });

  const refusal = async (step: unknown) => {
    const { warnings } = await runJson("research", [
      { value: LIST },
      { value: { analysis: "search", calls: [search("station 3")] } },
      { value: step },
      { value: subtaskAnswer("E1") },
    ]);
    return warnings[0];
  };

  it("refuses a step with both calls and the subtask answer, with neither, or citing evidence never retrieved", async () => {
    expect(await refusal({ ...subtaskAnswer("E1"), calls: [search("more")] })).toBe(
      "MALFORMED_ACTION: malformed action 1 of 10: a reply holds either tool calls or the subtask answer, not both",
    );
    expect(await refusal({ analysis: "hmm" })).toBe(
      "MALFORMED_ACTION: malformed action 1 of 10: the reply has neither tool calls nor the subtask answer",
    );
    expect(await refusal(subtaskAnswer("E7"))).toBe(
      "MALFORMED_ACTION: malformed action 1 of 10: the subtask answer cites evidence that was never retrieved: E7",
    );
  });

  it("the refinement of the pending subtasks asks with its own request, prompt and schema", async () => {
    const refined = { status: "S1 open", pending: [{ title: "Architect", goal: "who designed station 3" }] };
    const { run, s } = await runJson(
      "research",
      [
        { value: LIST },
        { value: { analysis: "search", calls: [search("station 3")] } },
        { value: refined },
        { value: subtaskAnswer("E1") },
      ],
      { refineEvery: 1 },
    );
    const call = sent(run.structured[2]!);
    expect(call).toMatchObject({
      system: researchSys("refine"),
      schema: jsonInstruction(subtaskRefineSchema),
    });
    expect(call.prompt?.endsWith(`\n\n${RESEARCH_REFINE_REQUEST}`)).toBe(true);
    expect(s.figures.refinements).toBe(1);
  });
});
