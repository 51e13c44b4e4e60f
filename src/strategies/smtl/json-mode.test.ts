/**
 * What the JSON protocol gives any mode (json-protocol.ts), with a mode of the test's own and a
 * scripted run context: the first message from the mode's task, a reset straight to the mode's
 * message when the mode does not refine, and the refusal of a step whose every call was made
 * before, naming them within 300 characters.
 */

import { describe, expect, it } from "vitest";
import { jsonAnswerProtocol } from "./json-answer.ts";
import { type JsonMode, jsonProtocol } from "./json-protocol.ts";
import { jsonResearchProtocol } from "./json-research.ts";
import { smtlLoop } from "./run.ts";
import { answerFigures } from "./state.ts";
import { fakeRun, smtlOptions } from "./test-fixtures.ts";

const unused = () => {
  throw new Error("not called in this test");
};

/** A mode that never refines: only its task, framing, instructions and reset message matter. */
const plainMode: JsonMode<never> = {
  task: (query) => `Task: ${query}`,
  figures: answerFigures,
  framed: () => true,
  stepInstructions: () => "Step.",
  resetMessage: () => "Start again from the notes.",
  seen: () => ({}),
  codec: unused,
  act: unused,
  refineDue: () => false,
  refine: unused,
  done: () => false,
  finish: unused,
};

describe("the JSON protocol for any mode", () => {
  it("starts from the mode's task and, without a refinement, resets straight to the mode's message", async () => {
    const run = fakeRun([], { query: "Who built it?" });
    const protocol = jsonProtocol(plainMode);
    const s = protocol.start(run.ctx, smtlOptions({ contextTokens: 1 }));
    expect(s.talk.turns).toEqual([{ role: "user", content: "Task: Who built it?" }]);
    s.talk.accept("{}");
    s.talk.tell("results");
    expect(protocol.overContext(s)).toBe(true);
    expect(await protocol.resetContext(s)).toBeNull();
    expect(s.talk.turns).toEqual([{ role: "user", content: "Start again from the notes." }]);
    expect(run.of("context-reset")).toMatchObject([{ droppedTurns: 2 }]);
  });

  it("refuses a step whose every call was made before, naming them within 300 characters", async () => {
    const search = (i: number) => ({ tool: "web_search", query: `station ${i} ${"x".repeat(40)}` });
    const calls = Array.from({ length: 10 }, (_, i) => search(i));
    const plan = {
      thought: "t",
      goals: [{ goal: "find the architect", successCriterion: "a page names one", paths: ["search"] }],
      calls,
    };
    const run = fakeRun([{ value: plan }, { value: { thought: "again", calls } }], {
      query: "Who built it?",
    });
    const s = jsonAnswerProtocol.start(run.ctx, smtlOptions());
    await smtlLoop(s, jsonAnswerProtocol);
    const named = calls.map((c) => `web_search "${c.query}"`).join("; ");
    const malformed = run.of("trajectory-step").find((t) => t.action === "malformed")!;
    expect(malformed.answer).toEqual({
      error: `every call repeats one already made: ${named.slice(0, 300)}`,
    });
  });

  it("each mode's codecs: JSON codecs of their protocol, decoding a step of calls to its calls", () => {
    const call = { tool: "web_search" as const, query: "station 3" };
    const answer = jsonAnswerProtocol.start(fakeRun([]).ctx, smtlOptions());
    expect(jsonAnswerProtocol.codec(answer)).toMatchObject({ kind: "json", name: "smtl-json" });
    answer.plan = { goals: [], nextPaths: [] };
    const step = jsonAnswerProtocol.codec(answer);
    expect(step).toMatchObject({ kind: "json", name: "smtl-json" });
    const value = { thought: "t", calls: [call] };
    expect(step.decode(value as never, answer)).toEqual({
      ok: true,
      action: { kind: "calls", value, calls: [call] },
    });

    const research = jsonResearchProtocol.start(fakeRun([]).ctx, smtlOptions());
    expect(jsonResearchProtocol.codec(research)).toMatchObject({ kind: "json", name: "smtl-json-research" });
    research.subtasks = [{ id: "S1", title: "Architect", goal: "who designed it" }];
    const subtaskStep = jsonResearchProtocol.codec(research);
    expect(subtaskStep).toMatchObject({ kind: "json", name: "smtl-json-research" });
    const stepValue = { analysis: "a", plan: [], calls: [call] };
    expect(subtaskStep.decode(stepValue as never, research)).toEqual({
      ok: true,
      action: { kind: "calls", value: stepValue, calls: [call] },
    });
  });
});
