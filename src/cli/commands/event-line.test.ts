import { describe, expect, it } from "vitest";
import { type DossierEvent, EVENT_TYPES, type EventInput } from "../../core/events.ts";
import { formatEvent } from "./event-line.ts";

const stamp = (e: EventInput, seq = 7): DossierEvent =>
  ({ ...e, runId: "r-1", seq, ts: "2026-11-24T10:11:12.345Z", scope: "search:T-2" }) as DossierEvent;

/** One event of each type, as a strategy would emit it. */
const REVIEW_PLAN = {
  strategy: "minddr",
  kind: "subtasks",
  limits: { minItems: 1, maxItems: 12, maxChildren: 0, textExtras: [] },
  items: [
    { id: "T-1", title: "Battery prices" },
    { id: "T-2", title: "Grid storage" },
  ],
};

const SAMPLES: Record<string, EventInput> = {
  "plan-review": {
    type: "plan-review",
    plan: REVIEW_PLAN,
    deadline: "2026-01-02T10:00:00.000Z",
    timeoutMinutes: 1440,
  },
  "plan-reviewed": {
    type: "plan-reviewed",
    action: "edit",
    plan: REVIEW_PLAN,
    changes: { added: ["T-3"], removed: ["T-4"], reworded: [], reordered: true, retitled: false },
  },
  "run-resume": {
    type: "run-resume",
    previousStatus: "interrupted",
    journaledSteps: 12,
    previousWallMs: 61_000,
  },
  "llm-retry": {
    type: "llm-retry",
    callId: "c1",
    role: "searcher",
    model: "openai:gpt-5-mini",
    attempt: 2,
    delayMs: 1500,
    error: { code: "RATE_LIMITED", message: "429 Too Many Requests" },
  },
  "source-add": {
    type: "source-add",
    source: { id: "S3", title: "Battery prices", url: "https://example.org/b" },
  },
  "evidence-add": {
    type: "evidence-add",
    evidence: { id: "E9", sourceId: "S3", text: "Pack prices fell\n20 percent in 2024." },
  },
  "outline-update": { type: "outline-update", outline: { sections: [{}, {}, {}] }, reason: "expansion" },
  "xot-add": { type: "xot-add", agent: "search:T-2", kind: "finding", text: "Prices fell [E9]." },
  "step-end": { type: "step-end", step: 3, toolCalls: 4, failed: 1 },
  "trajectory-step": { type: "trajectory-step", step: 5, action: "SEARCH", state: {}, answer: {} },
  "plan-refine": { type: "plan-refine", step: 6, forced: true, plan: {} },
  "context-reset": {
    type: "context-reset",
    step: 9,
    droppedTurns: 6,
    tokensBefore: 30_000,
    tokensAfter: 4_000,
  },
  "draft-snapshot": {
    type: "draft-snapshot",
    index: 2,
    step: 8,
    expansions: 1,
    markdown: "x".repeat(120),
    outline: {},
  },
  "draft-scored": { type: "draft-scored", index: 2, scorer: "rubric", score: 0.75 },
  "format-repair": {
    type: "format-repair",
    callId: "c4",
    role: "planner",
    model: "ollama:qwen3:8b",
    attempt: 1,
    excerpt: "{'plan': True,}",
  },
  "llm-call": {
    type: "llm-call",
    callId: "c5",
    role: "planner",
    model: "openai:gpt-5-mini",
    step: 3,
    messages: [{ role: "user", content: "Plan." }],
    sampling: { temperature: 0.7 },
    completion: "x".repeat(42),
    formatErrors: ["not JSON"],
    replayed: false,
    startedAt: "2026-01-02T10:11:12.000Z",
  },
  "claims-verified": {
    type: "claims-verified",
    mode: "check",
    claims: 8,
    judged: 0,
    counts: { supported: 4, partial: 1, unsupported: 1, unchecked: 2 },
    shares: { supported: 0.5, partial: 0.125, unsupported: 0.125, unchecked: 0.25 },
  },
  "claim-revised": {
    type: "claim-revised",
    claim: 3,
    action: "revise",
    before: "Prices fell 40 percent [E9].",
    after: "Prices fell 20 percent [E9].",
  },
  "answer-ready": {
    type: "answer-ready",
    answer: "About 20 percent.",
    verified: true,
    citations: [],
    evidence: ["E9", "E10"],
    steps: 4,
    toolCalls: 9,
    toolCallsPerStep: 2.25,
  },
  "node-pruned": {
    type: "node-pruned",
    nodeId: "T-6",
    by: "stop",
    reason: "not run: the tokens budget is spent",
  },
  "report-diff": {
    type: "report-diff",
    refreshOf: "r-0",
    version: 2,
    sectionsChanged: ["Findings"],
    claimsAdded: 2,
    claimsRemoved: 3,
    citationsAdded: 1,
    citationsRemoved: 0,
    pages: [{ url: "https://example.org/a", state: "changed" }],
    paths: ["out/r-1.diff.md", "out/r-1.diff.json"],
  },
  "report-ready": {
    type: "report-ready",
    formats: ["md", "html"],
    paths: ["out/report.md", "out/report.html"],
    stats: {},
  },
};

const EXPECTED: Record<string, string> = {
  "plan-review": "2 subtasks of minddr awaiting review until 2026-01-02T10:00:00.000Z",
  "plan-reviewed": "edit: +1 -1, 0 reworded, reordered → 2 subtasks",
  "format-repair": "planner attempt 1: malformed JSON repaired",
  "llm-call": "c5 planner step 3: 1 new messages, 42 chars format-errors=1",
  "claims-verified": "check: 8 claims (0 judged), supported 50%, partial 13%, unsupported 13%, unchecked 25%",
  "claim-revised": "claim 3 revised: Prices fell 40 percent [E9]. → Prices fell 20 percent [E9].",
  "run-resume": "after interrupted: 12 journaled results replayed, 61 s spent before",
  "llm-retry": "searcher openai:gpt-5-mini attempt 2 in 1500ms after RATE_LIMITED: 429 Too Many Requests",
  "source-add": 'S3 "Battery prices" https://example.org/b',
  "evidence-add": "E9 from S3: Pack prices fell 20 percent in 2024.",
  "outline-update": "3 sections (expansion)",
  "xot-add": "search:T-2 finding: Prices fell [E9].",
  "step-end": "step 3: 4 tool calls, 1 failed",
  "trajectory-step": "step 5: SEARCH",
  "plan-refine": "step 6 (forced)",
  "context-reset": "step 9: 6 turns dropped, 30000 → 4000 tokens",
  "draft-snapshot": "draft 2 at step 8, 1 expansions, 120 chars",
  "draft-scored": "draft 2 by rubric: 0.75",
  "answer-ready": "verified, 2 evidence, 4 steps: About 20 percent.",
  "node-pruned": "T-6 pruned by the stop: not run: the tokens budget is spent",
  "report-ready": "md, html → out/report.md, out/report.html",
  "report-diff": "version 2 of r-0: 1 section(s) rewritten (Findings), claims +2 -3, citations +1 -0",
};

describe("runs events lines", () => {
  it.each(Object.keys(SAMPLES))("%s reads as one line with what matters of it", (type) => {
    const line = formatEvent(stamp(SAMPLES[type]!));
    expect(line).toBe(`    7 10:11:12.345 ${type.padEnd(15)} [search:T-2] ${EXPECTED[type]}`);
  });

  it("has a line of its own for every event type (no raw JSON)", () => {
    const described = new Set([
      ...Object.keys(SAMPLES),
      // Covered by the runs and research command tests.
      ...["run-start", "task-framed", "plan-update", "node-start", "node-end", "llm-start", "llm-end"],
      ...["format-error", "tool-start", "tool-end", "node-assessed", "gate-verdict", "rubric-update"],
      ...["section-written", "decision", "phase", "warning", "run-end"],
    ]);
    expect(EVENT_TYPES.filter((t) => !described.has(t))).toEqual([]);
  });

  it("shows control characters in untrusted text escaped, and an unknown type's fields as JSON", () => {
    const hostile = stamp({
      type: "xot-add",
      agent: "a",
      kind: "k",
      text: "\u001b]0;pwned\u0007 \u202eevil",
    });
    expect(formatEvent(hostile)).toContain("\\x1b]0;pwned\\x07 \\u202eevil");
    const future = {
      ...stamp(SAMPLES["step-end"]!),
      type: "from-the-future",
      extra: 1,
    } as unknown as DossierEvent;
    expect(formatEvent(future)).toMatch(/from-the-future .*"extra":1/);
  });
});
