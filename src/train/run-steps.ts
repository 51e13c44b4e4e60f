/**
 * The steps of a recorded run, as the step-level rewards see them (MindDR §5.2: a trajectory
 * H = {(T_t, A_t, O_t)}): the model calls of one scope that share a step number, the tool calls
 * they asked for, the reasoning T_t (their completions) and the observations O_t (what those
 * tool calls returned: the kept observation text and the evidence passages they retrieved).
 * Steps are ordered by their first call; a tool call without a step belongs to no step. The
 * engine's work inside a tool call — a page reader's summary, a fetch within a crawl — is not
 * the agent's: it is left out of the steps (T) and of their tool calls (c_t), its results reach
 * the step through the tool call it served.
 */

import { callFormatOk, type RecordedCall } from "./recorded-call.ts";
import type { RecordedRun, RecordedToolCall } from "./recorded-run.ts";

/** One step of one agent. */
export interface RunStep {
  /** The agent's scope ("" when the calls had none). */
  scope: string;
  step: number;
  calls: RecordedCall[];
  toolCalls: RecordedToolCall[];
  /** T_t: the completions of the step's calls, in order. */
  reasoning: string[];
  /** O_t: what the step's tool calls returned. */
  observations: string[];
  /** True when no call of the step raised a format error. */
  formatOk: boolean;
}

/** Options of {@link runSteps}. */
export interface RunStepsOptions {
  /** Keeps only the steps of the scopes it accepts (e.g. MindDR's `search:` agents). */
  scope?: (scope: string) => boolean;
}

const key = (scope: string, step: number) => `${scope}\u0000${step}`;

/** The run's steps (see the module comment). */
export function runSteps(run: RecordedRun, options: RunStepsOptions = {}): RunStep[] {
  const steps = new Map<string, RunStep>();
  for (const call of run.calls) {
    if (call.toolCallId) continue;
    const scope = call.scope ?? "";
    if (options.scope && !options.scope(scope)) continue;
    const k = key(scope, call.step);
    let step = steps.get(k);
    if (!step) {
      step = {
        scope,
        step: call.step,
        calls: [],
        toolCalls: [],
        reasoning: [],
        observations: [],
        formatOk: true,
      };
      steps.set(k, step);
    }
    step.calls.push(call);
    step.reasoning.push(call.completion);
    step.formatOk &&= callFormatOk(call);
  }
  const passages = new Map<string, string[]>();
  for (const e of run.evidence) {
    const list = passages.get(e.retrievedBy.callId) ?? [];
    list.push(e.text);
    passages.set(e.retrievedBy.callId, list);
  }
  for (const tool of run.toolCalls) {
    if (tool.step === undefined || tool.parentCallId) continue;
    const step = steps.get(key(tool.scope ?? "", tool.step));
    if (!step) continue;
    step.toolCalls.push(tool);
    if (tool.observation) step.observations.push(tool.observation);
    step.observations.push(...(passages.get(tool.callId) ?? []));
  }
  return [...steps.values()];
}
