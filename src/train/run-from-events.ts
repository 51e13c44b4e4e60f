/**
 * Builds a {@link RecordedRun} from a run's event log, its recorded model calls and its final
 * report. What comes from which event:
 *
 * - model calls: the `llm-call` events of the run's last attempt, unless given;
 * - strategy: `run-start`; status and stop reason: `run-end` (a log without it is refused);
 * - tool calls, in the order they started: `tool-start` (tool, provider, arguments, scope) and
 *   `tool-end` (outcome); one that never ended counts as failed (`CANCELLED`). Its step is the
 *   step of the last model call of a policy role that ended in the same scope before the tool
 *   call started (the call that asked for it);
 * - sources and evidence: `source-add`, `evidence-add` (malformed ones are skipped);
 * - trajectory: `trajectory-step`; a tool call started in the same scope after an action and
 *   before the scope's next action belongs to that action (warp records SEARCH before it runs);
 *   the recorded model calls (not inside a tool call) that ended after the previous action and
 *   before this one are its `callIds` (warp's actions run one at a time: the calls behind it);
 * - drafts: `draft-snapshot`, with the score of the last `draft-scored` for the same index and
 *   the last recorded call that ended before it (`lastCallId`);
 * - answer: the last `answer-ready`.
 */

import { DossierError } from "../core/errors.ts";
import type { DossierEvent, EventOf } from "../core/events.ts";
import { evidenceSchema, sourceSchema } from "../core/source.ts";
import type { Role } from "../llm/model-spec.ts";
import { recordedCallsFromEvents } from "./calls-from-events.ts";
import { parseInput } from "./parse-input.ts";
import type { QuestionRow } from "./question-row.ts";
import type { RecordedCall } from "./recorded-call.ts";
import {
  type RecordedDraft,
  type RecordedRun,
  type RecordedToolCall,
  recordedRunSchema,
  type TrajectoryAction,
} from "./recorded-run.ts";

/** Input of {@link recordedRunFromEvents}. */
export interface RunFromEventsInput {
  row: QuestionRow;
  /** The run's events (any order; sorted by `seq`). */
  events: readonly DossierEvent[];
  /** The run's recorded model calls, in order. Default: the log's `llm-call` events (calls-from-events.ts). */
  calls?: readonly RecordedCall[];
  /** The final report's Markdown, when one was written. */
  report?: string | null;
  group?: { id: string; index: number };
  /**
   * Roles whose calls ask for tools; a tool call is attributed to the last of their calls in its
   * scope. Default: every role.
   */
  policyRoles?: readonly Role[];
}

function only<T extends DossierEvent["type"]>(events: readonly DossierEvent[], type: T): EventOf<T>[] {
  return events.filter((e): e is EventOf<T> => e.type === type);
}

/** The recorded run of an event log (see the module comment). */
export function recordedRunFromEvents(input: RunFromEventsInput): RecordedRun {
  const events = [...input.events].sort((a, b) => a.seq - b.seq);
  const runId = events[0]?.runId;
  if (!runId) throw new DossierError("INPUT_INVALID", "no events: nothing to build a run from");
  if (events.some((e) => e.runId !== runId))
    throw new DossierError("INPUT_INVALID", "the events belong to more than one run");
  const start = only(events, "run-start")[0];
  const end = only(events, "run-end").at(-1);
  if (!start) throw new DossierError("INPUT_INVALID", `run ${runId}: no run-start event`);
  if (!end) throw new DossierError("INPUT_INVALID", `run ${runId}: the run has not ended (no run-end event)`);

  const calls = input.calls ?? recordedCallsFromEvents(events);
  const stepOfCall = new Map(calls.map((c) => [c.callId, c.step]));
  const agentCall = new Set(calls.filter((c) => !c.toolCallId).map((c) => c.callId));
  const recordedCall = new Set(calls.map((c) => c.callId));
  let sinceAction: string[] = [];
  let lastCall: string | null = null;
  const policy = input.policyRoles ? new Set<string>(input.policyRoles) : null;
  const lastCallInScope = new Map<string, string>();
  const lastActionInScope = new Map<string, TrajectoryAction>();
  const toolCalls = new Map<string, RecordedToolCall>();
  const trajectory: TrajectoryAction[] = [];
  const drafts = new Map<number, RecordedDraft>();
  const scores = new Map<number, number | null>();
  const sources: RecordedRun["sources"] = [];
  const evidence: RecordedRun["evidence"] = [];
  let answer: string | null = null;

  for (const event of events) {
    const scope = event.scope ?? "";
    switch (event.type) {
      case "llm-end":
        if (!policy || policy.has(event.role)) lastCallInScope.set(scope, event.callId);
        if (agentCall.has(event.callId)) sinceAction.push(event.callId);
        if (recordedCall.has(event.callId)) lastCall = event.callId;
        break;
      case "tool-start": {
        const asker = lastCallInScope.get(scope);
        const step = asker === undefined ? undefined : stepOfCall.get(asker);
        toolCalls.set(event.callId, {
          callId: event.callId,
          tool: event.tool,
          ...(event.provider ? { provider: event.provider } : {}),
          args: event.args,
          ok: false,
          error: { code: "CANCELLED", message: "the tool call never ended" },
          ...(event.scope ? { scope: event.scope } : {}),
          ...(step === undefined ? {} : { step }),
          ...(event.parentCallId ? { parentCallId: event.parentCallId } : {}),
        });
        lastActionInScope.get(scope)?.toolCallIds.push(event.callId);
        break;
      }
      case "tool-end": {
        const call = toolCalls.get(event.callId);
        if (!call) break;
        call.ok = event.ok;
        if (event.ok) delete call.error;
        else call.error = { code: event.error?.code ?? "TOOL_ERROR", message: event.error?.message ?? "" };
        break;
      }
      case "source-add": {
        const parsed = sourceSchema.safeParse(event.source);
        if (parsed.success) sources.push(parsed.data);
        break;
      }
      case "evidence-add": {
        const parsed = evidenceSchema.safeParse(event.evidence);
        if (parsed.success) evidence.push(parsed.data);
        break;
      }
      case "trajectory-step": {
        const action: TrajectoryAction = {
          step: event.step,
          action: event.action,
          state: event.state,
          answer: event.answer,
          ...(event.scope ? { scope: event.scope } : {}),
          toolCallIds: [],
          callIds: sinceAction,
        };
        sinceAction = [];
        trajectory.push(action);
        lastActionInScope.set(scope, action);
        break;
      }
      case "draft-snapshot":
        drafts.set(event.index, {
          index: event.index,
          step: event.step,
          expansions: event.expansions,
          markdown: event.markdown,
          outline: event.outline,
          lastCallId: lastCall,
        });
        break;
      case "draft-scored":
        scores.set(event.index, event.score);
        break;
      case "answer-ready":
        answer = event.answer;
        break;
    }
  }
  for (const [index, score] of scores) {
    const draft = drafts.get(index);
    if (draft) draft.score = score;
  }
  return parseInput(
    recordedRunSchema,
    {
      runId,
      strategy: start.strategy,
      row: input.row,
      ...(input.group ? { group: input.group } : {}),
      calls,
      toolCalls: [...toolCalls.values()],
      sources,
      evidence,
      trajectory,
      drafts: [...drafts.values()].sort((a, b) => a.index - b.index),
      answer,
      report: input.report ?? null,
      status: end.status,
      stopReason: end.stopReason,
    },
    `run ${runId}`,
  );
}
