/**
 * The tag protocol's loop for a released checkpoint (tags.ts), with the model and the tools as
 * fakes of the run context: what each request renders (the seed's sampling, the one growing
 * conversation), what every kind of reply does to the conversation, the figures and the
 * trajectory, what a refused reply costs, and when the step cap, the periodic request for a
 * `<summary>` and the reset at the context budget come.
 */

import { describe, expect, it } from "vitest";
import { NO_CALL_YET } from "../../kit/research-done.ts";
import { estimatePromptTokens } from "../../llm/token-estimate.ts";
import type { SmtlFigures } from "./answer.ts";
import { CONTINUE_MESSAGE, nativeSystem, nativeTask, resetMessage, SUMMARY_NUDGE } from "./native-prompts.ts";
import { nativeResearchSystem } from "./native-research-prompts.ts";
import { smtlLoop } from "./run.ts";
import { tagProtocol } from "./tags.ts";
import { type FakeRunOptions, fakeRun, type ScriptedAnswer, smtlOptions } from "./test-fixtures.ts";

const QUERY = "Which architect designed station 3?";
const toolCall = (query: string) =>
  `<tool_call>\n${JSON.stringify({ name: "web_search", arguments: { query } })}\n</tool_call>`;
const PLAN = "The station first, then its architect.\n<plan>\n## Goal 1: the architect\n</plan>";
const ANSWER = "Verified.\n<answer>Mara Vell</answer>";

async function runTags(
  mode: "answer" | "research",
  script: ScriptedAnswer[],
  options: Parameters<typeof smtlOptions>[0] = {},
  fake: FakeRunOptions = {},
) {
  const run = fakeRun(script, { query: QUERY, ...fake });
  const protocol = tagProtocol(mode);
  const s = protocol.start(run.ctx, smtlOptions(options));
  await smtlLoop(s, protocol);
  const figures = s.figures as SmtlFigures;
  const actions = run.of("trajectory-step").map((t) => t.action);
  const warnings = run.of("warning").map((w) => `${w.code}: ${w.message}`);
  return { run, s, protocol, figures, actions, warnings };
}

describe("the tag protocol's requests", () => {
  it("renders the searcher's call with the mode's system prompt, the task, the seed's sampling and 8,192 output tokens", async () => {
    const { run } = await runTags("answer", [PLAN, toolCall("station 3"), ANSWER]);
    const system = nativeSystem({
      tools: ["web_search", "read_page"],
      currentDate: "2026-03-01",
      language: "en",
      maxSteps: 100,
    });
    expect(run.calls[0]).toEqual({
      role: "searcher",
      system,
      messages: [{ role: "user", content: nativeTask(QUERY) }],
      temperature: 1,
      topP: 0.9,
      maxOutputTokens: 8192,
    });
    // One growing conversation: each call sends every accepted reply and what followed it.
    expect(run.calls[2]!.messages!.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(run.calls[2]!.messages![1]!.content).toBe(PLAN);
    expect(run.calls[2]!.messages![2]!.content).toBe(CONTINUE_MESSAGE);
    expect(run.calls[2]!.messages![4]!.content).toMatch(/^<tool_response>\n\{"name":"web_search"/);
  });

  it("sends the user's temperature and top-p over the seed's, a zero included", async () => {
    const { run } = await runTags("research", [ANSWER, ANSWER], { temperature: 0, topP: 0.5 });
    expect(run.calls[0]).toMatchObject({ temperature: 0, topP: 0.5, maxOutputTokens: 8192 });
    expect(run.calls[0]!.system).toBe(
      nativeResearchSystem({
        tools: ["web_search", "read_page"],
        currentDate: "2026-03-01",
        language: "en",
        maxSteps: 100,
      }),
    );
  });

  it("a checkpoint's own system prompt replaces Dossier's", async () => {
    const { run } = await runTags("answer", [ANSWER, ANSWER], { systemPrompt: "You are SMTL." });
    expect(run.calls.map((c) => c.system)).toEqual(["You are SMTL.", "You are SMTL."]);
  });
  it("is a text codec of the smtl-tags protocol", async () => {
    const { protocol, s } = await runTags("answer", [ANSWER, ANSWER]);
    expect(protocol.codec(s)).toMatchObject({ kind: "text", name: "smtl-tags" });
  });
});

describe("the tag protocol's replies", () => {
  it("a plan, calls, then the answer: the plan frames the task once, calls run, the answer ends the loop", async () => {
    const { run, s, figures, actions } = await runTags("answer", [PLAN, toolCall("station 3"), ANSWER]);
    expect(actions).toEqual(["plan", "search", "answer"]);
    expect(run.of("task-framed")).toEqual([
      { type: "task-framed", spec: { mode: "smtl-native", plan: "## Goal 1: the architect", ...s.windows } },
    ]);
    expect(s.answer).toEqual({ text: "Mara Vell", citations: [], verification: [] });
    expect(s.insisted).toBe(false);
    expect(s.replies).toBe(3);
    expect(figures).toMatchObject({
      steps: 1,
      toolCalls: 1,
      refinements: 0,
      malformedActions: 0,
      modelTurns: 3,
    });
    expect(run.of("trajectory-step")[1]!.state).toMatchObject({ turn: 2, calls: 1 });
    expect(s.talk.turns.at(-1)).toEqual({ role: "assistant", content: ANSWER });
  });

  it("an answer before the first tool call is sent back once with NO_CALL_YET; given again, it is accepted as insisted", async () => {
    const { run, s, actions, warnings } = await runTags("answer", [ANSWER, ANSWER]);
    expect(actions).toEqual(["answer", "answer"]);
    expect(run.of("trajectory-step")[0]!.state).toMatchObject({ turn: 1, beforeResearch: true });
    expect(run.of("trajectory-step")[1]!.state).not.toHaveProperty("beforeResearch");
    expect(warnings).toEqual(["NO_CALL_YET: the agent answered before its first tool call; asked once more"]);
    expect(run.calls[1]!.messages!.at(-1)).toEqual({ role: "user", content: NO_CALL_YET });
    expect(s.reasked).toBe(true);
    expect(s.insisted).toBe(true);
    expect(s.answer?.text).toBe("Mara Vell");
  });

  it("the mode's final step fails a run that insisted on answering before any research", async () => {
    const { protocol, s } = await runTags("answer", [ANSWER, ANSWER]);
    await expect(protocol.finish(s)).rejects.toMatchObject({
      code: "NO_RESEARCH",
      message: expect.stringContaining("the agent answered twice before its first tool call"),
    });
  });

  it("an answer after research is accepted at once", async () => {
    const { s, warnings } = await runTags("answer", [toolCall("station 3"), ANSWER]);
    expect(warnings).toEqual([]);
    expect(s.reasked).toBe(false);
    expect(s.insisted).toBe(false);
    expect(s.answer?.text).toBe("Mara Vell");
  });

  it("a refused reply is counted and sampled again from the same conversation, never added to it", async () => {
    const broken = `${toolCall("station 3")}\nand then`;
    const { run, s, figures, warnings } = await runTags("answer", [broken, toolCall("station 3"), ANSWER]);
    expect(warnings[0]).toMatch(/^MALFORMED_ACTION: malformed reply 1 of 10: the reply must end with/);
    const malformed = run.of("trajectory-step")[0]!;
    expect(malformed).toMatchObject({ action: "malformed", state: { turn: 0, observations: [] } });
    expect(malformed.answer).toEqual({ error: expect.stringMatching(/must end with/), reply: broken });
    expect(run.calls[1]!.messages).toEqual(run.calls[0]!.messages);
    expect(s.talk.turns.map((t) => t.content)).not.toContain(broken);
    expect(figures.malformedActions).toBe(1);
  });

  it("a refused reply is kept in the trajectory up to 2,000 characters", async () => {
    const broken = `${"x".repeat(2100)}`;
    const { run } = await runTags("answer", [broken, toolCall("q"), ANSWER]);
    expect((run.of("trajectory-step")[0]!.answer as { reply: string }).reply).toBe("x".repeat(2000));
  });

  it("a reply whose every tool call is malformed gets its responses and counts as malformed; one good call is enough", async () => {
    const bad = '<tool_call>\n{"name": "code_interpreter", "arguments": {}}\n</tool_call>';
    const allBad = await runTags("answer", [bad, toolCall("station 3"), ANSWER]);
    expect(allBad.figures.malformedActions).toBe(1);
    expect(allBad.warnings[0]).toBe(
      "MALFORMED_ACTION: malformed reply 1 of 10: every tool call of the reply is malformed",
    );
    expect(allBad.s.talk.turns[2]!.content).toContain(
      '"observation":"error: unknown tool \\"code_interpreter\\""',
    );
    const oneGood = await runTags("answer", [`${bad}\n${toolCall("station 3")}`, ANSWER]);
    expect(oneGood.figures.malformedActions).toBe(0);
    expect(oneGood.figures.toolCalls).toBe(1);
  });

  it("a summary is a refinement, followed by the message to go on; it frames nothing", async () => {
    const summary = "<summary>\n- Goal 1: In Progress\n</summary>";
    const { run, figures, actions, s } = await runTags("answer", [toolCall("q"), summary, ANSWER]);
    expect(actions).toEqual(["search", "summary", "answer"]);
    expect(figures.refinements).toBe(1);
    expect(run.of("task-framed")).toEqual([]);
    expect(s.talk.turns[4]).toEqual({ role: "user", content: CONTINUE_MESSAGE });
  });

  it("a plan after the first tool step frames nothing", async () => {
    const { run, figures } = await runTags("answer", [toolCall("q"), PLAN, ANSWER]);
    expect(run.of("task-framed")).toEqual([]);
    expect(figures.refinements).toBe(0);
  });
});

describe("the tag protocol's research notes", () => {
  const LIST = "Two strands.\n<subtask_list>\n1. Openings\n2. Architect\n</subtask_list>";

  it("the subtask list frames the task with the list as its plan; notes are named by their weightiest tag", async () => {
    const note = "<analysis>a</analysis>\n<subtask>S1</subtask>";
    const { run, s, actions, figures } = await runTags("research", [LIST, note, toolCall("q"), ANSWER]);
    expect(actions).toEqual(["subtask-list", "subtask", "search", "answer"]);
    expect(run.of("task-framed")).toEqual([
      {
        type: "task-framed",
        spec: { mode: "smtl-native-research", plan: "1. Openings\n2. Architect", ...s.windows },
      },
    ]);
    expect(figures.refinements).toBe(0);
    expect(s.talk.turns[2]).toEqual({ role: "user", content: CONTINUE_MESSAGE });
  });

  it("a note holding a summary is a refinement", async () => {
    const note = "<analysis>status</analysis>\n<summary>S1 done</summary>";
    const { figures, actions } = await runTags("research", [toolCall("q"), note, ANSWER]);
    expect(actions).toEqual(["search", "summary", "answer"]);
    expect(figures.refinements).toBe(1);
  });

  it("a note that is not a subtask list frames nothing", async () => {
    const { run } = await runTags("research", ["<analysis>a</analysis>", toolCall("q"), ANSWER]);
    expect(run.of("task-framed")).toEqual([]);
  });
});

describe("the tag protocol's limits", () => {
  it("the step cap counts replies, not tool steps", async () => {
    const { s, run } = await runTags("answer", [PLAN, toolCall("a"), toolCall("b")], { maxSteps: 2 });
    expect(s.stopReason).toBe("step-cap");
    expect(s.replies).toBe(2);
    expect(run.script).toHaveLength(1);
  });

  it("every refineEvery-th reply's tool responses end with the request for a summary", async () => {
    const { s } = await runTags("answer", [toolCall("a"), toolCall("b"), toolCall("c"), ANSWER], {
      refineEvery: 2,
    });
    const told = s.talk.turns.filter((t) => t.role === "user").slice(1);
    expect(told.map((t) => t.content.endsWith(`\n\n${SUMMARY_NUDGE}`))).toEqual([false, true, false]);
  });

  it("only a reply that ran tools counts toward the request for a summary", async () => {
    const summary = "<summary>G1 open</summary>";
    const { s } = await runTags("answer", [ANSWER, PLAN, toolCall("a"), summary, ANSWER], { refineEvery: 1 });
    expect(s.talk.turns.map((t) => t.content.endsWith(SUMMARY_NUDGE))).toEqual([
      false, // the task
      false, // the early answer
      false, // NO_CALL_YET
      false, // the plan
      false, // the message to go on
      false, // the calls
      true, // their responses
      false, // the summary
      false, // the message to go on
      false, // the answer
    ]);
  });

  it("no request for a summary after a reply that ran no tools", async () => {
    const { s } = await runTags("answer", [toolCall("a"), PLAN, ANSWER], { refineEvery: 2 });
    expect(s.talk.turns.some((t) => t.content.includes(SUMMARY_NUDGE))).toBe(false);
  });
});

describe("the tag protocol at the context budget", () => {
  const SYSTEM = nativeSystem({
    tools: ["web_search", "read_page"],
    currentDate: "2026-03-01",
    language: "en",
    maxSteps: 100,
  });
  const SUMMARY = "Status.\n<summary>G1 open</summary>";

  it("asks for a summary with the last message, then resets the conversation to the task and that summary", async () => {
    const { run, s, figures, actions } = await runTags("answer", [PLAN, SUMMARY], { contextTokens: 1 });
    expect(run.calls[1]).toMatchObject({
      role: "searcher",
      system: SYSTEM,
      temperature: 1,
      topP: 0.9,
      maxOutputTokens: 8192,
    });
    expect(run.calls[1]!.messages!.at(-1)).toEqual({
      role: "user",
      content: `${CONTINUE_MESSAGE}\n\n${SUMMARY_NUDGE}`,
    });
    expect(actions).toEqual(["plan", "summary"]);
    expect(run.of("trajectory-step")[1]!.state).toMatchObject({ turn: 1, forced: true });
    expect(figures.refinements).toBe(1);
    expect(figures.contextResets).toBe(1);
    expect(run.calls[2]!.messages).toEqual([{ role: "user", content: resetMessage(QUERY, "G1 open") }]);
    const [reset] = run.of("context-reset");
    expect(reset).toMatchObject({
      step: 0,
      droppedTurns: 2,
      tokensAfter: estimatePromptTokens([SYSTEM, resetMessage(QUERY, "G1 open")]),
    });
    expect(reset!.tokensBefore).toBe(
      estimatePromptTokens([SYSTEM, nativeTask(QUERY), PLAN, CONTINUE_MESSAGE]),
    );
    // The script ran out on the call after the reset: that failed call stops the loop.
    expect(s.stopReason).toBe("error:error");
  });

  it("a refused summary is counted, and the reset keeps no summary", async () => {
    const { run, figures, warnings } = await runTags("answer", [PLAN, "<plan>again</plan>"], {
      contextTokens: 1,
    });
    expect(warnings[0]).toBe(
      "MALFORMED_ACTION: malformed reply 1 of 10: the reply to the summary request holds no <summary>",
    );
    expect(figures).toMatchObject({ refinements: 0, contextResets: 1, malformedActions: 1 });
    expect(run.calls[2]!.messages).toEqual([{ role: "user", content: resetMessage(QUERY, null) }]);
  });

  it("a failed summary call stops the loop with its reason and resets nothing", async () => {
    const { run, s } = await runTags("answer", [PLAN], { contextTokens: 1 });
    expect(s.stopReason).toBe("error:error");
    expect(run.of("context-reset")).toEqual([]);
    expect(run.calls).toHaveLength(2);
  });

  it("is passed only when the conversation holds more than the task and exceeds the budget", () => {
    const size = (contextTokens: number, replied: boolean) => {
      const protocol = tagProtocol("answer");
      const s = protocol.start(fakeRun([]).ctx, smtlOptions({ contextTokens }));
      if (replied) {
        s.talk.accept(PLAN);
        s.talk.tell(CONTINUE_MESSAGE);
      }
      return { over: protocol.overContext(s), tokens: s.talk.size(SYSTEM) };
    };
    const { tokens } = size(1, true);
    expect(size(tokens, true).over).toBe(false);
    expect(size(tokens - 1, true).over).toBe(true);
    expect(size(1, false).over).toBe(false);
  });
});
