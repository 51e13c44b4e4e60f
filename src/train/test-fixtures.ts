/**
 * Fixtures of the training tests: recorded calls, runs and event logs written by hand, with
 * defaults for every field a test does not care about.
 */

import type { DossierEvent, EventInput } from "../core/events.ts";
import type { QuestionRow } from "./question-row.ts";
import type { RecordedCall } from "./recorded-call.ts";
import type { RecordedRun, RecordedToolCall } from "./recorded-run.ts";

/** The run id of every fixture. */
export const RUN_ID = "run-1";

/** A recorded call; `completion` defaults to "ok", no format error, 10 + 5 tokens. */
export function fixtureCall(fields: Partial<RecordedCall> & { callId: string; step: number }): RecordedCall {
  return {
    runId: RUN_ID,
    role: "searcher",
    model: "openai-compatible:policy",
    messages: [{ role: "user", content: "question" }],
    sampling: { temperature: 1, topP: 1 },
    completion: "ok",
    formatErrors: [],
    usage: { inputTokens: 10, outputTokens: 5, costUsd: null },
    startedAt: "2026-01-01T00:00:00.000Z",
    endedAt: "2026-01-01T00:00:01.000Z",
    ...fields,
  };
}

/** A tool call; succeeded unless `ok: false`. */
export function fixtureTool(
  fields: Partial<RecordedToolCall> & { callId: string; step?: number; ok?: boolean },
): RecordedToolCall {
  const ok = fields.ok ?? true;
  return {
    tool: "web_search",
    ok,
    ...(ok ? {} : { error: { code: "PROVIDER_ERROR", message: "failed" } }),
    ...fields,
  };
}

/** A question row. */
export function fixtureRow(fields: Partial<QuestionRow> = {}): QuestionRow {
  return { id: "q1", prompt: "Which city hosts the museum?", ...fields };
}

/** A recorded run with nothing in it but what `fields` gives. */
export function fixtureRun(fields: Partial<RecordedRun> = {}): RecordedRun {
  return {
    runId: RUN_ID,
    strategy: "smtl",
    row: fixtureRow(),
    calls: [],
    toolCalls: [],
    sources: [],
    evidence: [],
    trajectory: [],
    drafts: [],
    answer: null,
    report: null,
    status: "completed",
    stopReason: "completed",
    ...fields,
  };
}

/** Stamps event inputs as a log: seq from 1, one second apart, with the given scopes. */
export function fixtureEvents(inputs: ReadonlyArray<EventInput & { scope?: string }>): DossierEvent[] {
  return inputs.map((input, i) => ({
    ...input,
    runId: RUN_ID,
    seq: i + 1,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  })) as DossierEvent[];
}
