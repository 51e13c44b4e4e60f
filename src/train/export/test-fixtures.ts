/**
 * Fixtures of the export tests: a group of recorded runs of one question with what a real
 * rollout holds — a search agent that keeps its history across steps (tool calls and their
 * results in the messages), a planner call with a response schema, a repaired answer with a
 * format error, a failed call — and their rewards.
 */

import type { QuestionRow } from "../question-row.ts";
import type { RecordedCall, RecordedMessage, ToolDefinition } from "../recorded-call.ts";
import type { RecordedRun } from "../recorded-run.ts";
import { fixtureCall, fixtureRow, fixtureRun } from "../test-fixtures.ts";
import type { ScoredRun } from "./rl.ts";

/** The search tool offered to the agent. */
export const SEARCH_TOOL: ToolDefinition = {
  name: "web_search",
  description: "Search the web",
  parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
};

const system: RecordedMessage = { role: "system", content: "You are a search agent. Cite evidence ids." };
const user: RecordedMessage = { role: "user", content: "Which city hosts the Museum of the Moving Image?" };
const turn1: RecordedMessage = {
  role: "assistant",
  content: "",
  toolCalls: [{ id: "c1", name: "web_search", arguments: '{"query":"Museum of the Moving Image city"}' }],
};
const result1: RecordedMessage = {
  role: "tool",
  toolCallId: "c1",
  content: "[E1] The museum is in Astoria, Queens.",
};

/** The question row of the fixtures. */
export const ROW: QuestionRow = fixtureRow({
  id: "q1",
  prompt: "Which city hosts the Museum of the Moving Image?",
  answer: "New York City",
  entities: ["Astoria", "Queens"],
});

/** A run's calls: planner (schema), two agent steps sharing history, a failed call, a repaired answer. */
export function fixtureCalls(runId: string, answer: string): RecordedCall[] {
  return [
    fixtureCall({
      runId,
      callId: "L1",
      role: "planner",
      scope: "planner",
      step: 1,
      messages: [system, { role: "user", content: "Plan the search." }],
      responseSchema: { type: "object", properties: { steps: { type: "array" } } },
      completion: '{"steps":["find the museum"]}',
    }),
    fixtureCall({
      runId,
      callId: "L2",
      role: "searcher",
      scope: "search:T-1",
      step: 1,
      messages: [system, user],
      tools: [SEARCH_TOOL],
      completion: '{"tool":"web_search","query":"Museum of the Moving Image city"}',
    }),
    fixtureCall({
      runId,
      callId: "L3",
      role: "searcher",
      scope: "search:T-1",
      step: 2,
      messages: [system, user, turn1, result1],
      tools: [SEARCH_TOOL],
      completion: `Astoria is in Queens, New York City. Answer: ${answer} [E1]`,
    }),
    fixtureCall({
      runId,
      callId: "L4",
      role: "writer",
      scope: "report",
      step: 1,
      messages: [{ role: "user", content: "Write the answer." }],
      completion: "",
      error: { code: "TIMEOUT", message: "no answer in time" },
    }),
    fixtureCall({
      runId,
      callId: "L5",
      role: "writer",
      scope: "report",
      step: 2,
      messages: [{ role: "user", content: "Write the answer as JSON." }],
      completion: "answer: NYC",
      formatErrors: ["not JSON"],
    }),
  ];
}

/** One run of the group; `index` is its place in the group. */
export function groupRun(index: number, answer: string, report: string | null): RecordedRun {
  const runId = `run-${index}`;
  return fixtureRun({
    runId,
    strategy: "smtl",
    row: ROW,
    group: { id: "q1", index },
    calls: fixtureCalls(runId, answer),
    answer,
    report,
  });
}

/** Three runs of one question with rewards 1, 0 and 1, and a run of another question alone. */
export function scoredGroup(): ScoredRun[] {
  const other = fixtureRun({
    runId: "run-9",
    row: fixtureRow({ id: "q2", prompt: "Who founded the museum?" }),
    calls: [fixtureCall({ runId: "run-9", callId: "L1", step: 1, completion: "Rochelle Slovin" })],
    answer: "Rochelle Slovin",
  });
  return [
    { run: groupRun(0, "New York City", "# Answer\n\nNew York City [1]."), reward: smtl(1) },
    { run: groupRun(1, "Boston", null), reward: smtl(0) },
    { run: groupRun(2, "New York", "# Answer\n\nNew York."), reward: smtl(1) },
    { run: other, reward: smtl(1) },
  ];
}

function smtl(reward: 0 | 1) {
  return { reward, components: { correct: reward, formatValid: true } };
}

/**
 * Strings that look like credentials: provider keys, bearer tokens, cloud keys, and JSON
 * fields named after secrets. An export must contain none.
 */
export const SECRET_PATTERNS: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}/,
  /\bBearer\s+[A-Za-z0-9._~+/-]{8,}/i,
  /\bAKIA[0-9A-Z]{16}\b/,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/,
  /"(?:api[_-]?key|apikey|authorization|password|secret|access[_-]?token|headers|base[_-]?url)"\s*:/i,
];

/** The secret-looking strings found in `text`. */
export function secretLike(text: string): string[] {
  return SECRET_PATTERNS.flatMap((p) => text.match(p) ?? []).map((m) => m.slice(0, 12));
}

/** TERMINATE as the native protocol's decision reply. */
export const TERMINATE_REPLY = '{"name":"terminate"}';

/** A forced decision's state: the unforced request (native protocol) the policy would have had. */
function forcedState(draft: number) {
  return {
    forced: true,
    unforced: {
      protocol: "native",
      messages: [{ role: "user", content: `Draft ${draft}: expand a section or terminate?` }],
      terminate: TERMINATE_REPLY,
    },
  };
}

/**
 * A forced-expansion warp run written by hand: draft 0 (score 4), a forced EXPAND (D1), draft 1
 * (score 9, the best), a forced EXPAND (D2), draft 2 (score 5). Pruned, it keeps W1, D1 and W2
 * and ends with `D2:terminate` (D2's unforced request answered {@link TERMINATE_REPLY}); D2 and
 * W3 are left out.
 */
export function forcedWarpRun(runId = "run-w"): RecordedRun {
  const call = (
    callId: string,
    role: "writer" | "planner",
    step: number,
    prompt: string,
    completion: string,
  ) =>
    fixtureCall({
      runId,
      callId,
      role,
      scope: role === "writer" ? "draft" : "deepen",
      step,
      messages: [{ role: "user", content: prompt }],
      completion,
    });
  const action = (step: number, name: string, callId: string, state: unknown = null) => ({
    step,
    action: name,
    state,
    answer: null,
    ...(name === "expand" ? { scope: "deepen" } : {}),
    toolCallIds: [],
    callIds: [callId],
  });
  const draft = (index: number, step: number, lastCallId: string, score: number) => ({
    index,
    step,
    expansions: index,
    markdown: `# Draft ${index}`,
    score,
    lastCallId,
  });
  return fixtureRun({
    runId,
    strategy: "warp",
    row: ROW,
    group: { id: "q1", index: 0 },
    calls: [
      call("W1", "writer", 1, "Write the first draft.", "# Draft 0"),
      call("D1", "planner", 1, "Draft 0: you must expand a section now.", '{"name":"expand","section":"s1"}'),
      call("W2", "writer", 2, "Write section s1.", "# Draft 1"),
      call("D2", "planner", 2, "Draft 1: you must expand a section now.", '{"name":"expand","section":"s2"}'),
      call("W3", "writer", 3, "Write section s2.", "# Draft 2"),
    ],
    trajectory: [
      action(1, "write", "W1"),
      action(2, "expand", "D1", forcedState(0)),
      action(3, "write", "W2"),
      action(4, "expand", "D2", forcedState(1)),
      action(5, "write", "W3"),
      { step: 6, action: "terminate", state: { relabelled: true }, answer: null, toolCallIds: [] },
    ],
    drafts: [draft(0, 1, "W1", 4), draft(1, 3, "W2", 9), draft(2, 5, "W3", 5)],
    report: "# Draft 2",
  });
}
