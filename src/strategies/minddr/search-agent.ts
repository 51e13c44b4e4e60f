/**
 * The loop both minddr DeepSearch agents share (compact and appended): an optional first step
 * the agent does not choose (compact: the planner's seed queries), then model steps — the model
 * reads its prompt, states a thought, the key findings of the last step and 1–5 actions that run
 * concurrently, or declares the goal covered, with the step's actions, if it names any, as the
 * last ones (a last action that fails gives it another step). Thoughts and findings go to the
 * XoT memory. It stops at the step cap, when the exploration budget is spent, or when it is
 * done, and ends with a sub-report that cites only the evidence it gathered. How a step's
 * prompt shows the agent's trajectory is the agent's own (see `deep-searcher.ts`,
 * `appended-searcher.ts`).
 *
 * Fallbacks: a step the model cannot answer ends the loop (warning `SEARCH_STEP_FALLBACK`) and
 * the sub-report is written from the evidence so far; a page the reader model cannot read stays
 * a failed observation the agent sees (warning `READER_FALLBACK`) and it goes on with snippets.
 */

import type { z } from "zod";
import { exceededLimit } from "../../core/budget.ts";
import { isDossierError } from "../../core/errors.ts";
import type { Evidence } from "../../core/source.ts";
import type { Observation } from "../../kit/observation.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { ActionRunner, type SearchAction } from "../../kit/search-actions.ts";
import { writeSubReport } from "../../kit/sub-reporter.ts";
import type { Subtask } from "./planner.ts";
import { MAX_ACTIONS, searcherSystem, stepSchema } from "./step.ts";
import type { XotMemory } from "./xot-memory.ts";

/** Options of a DeepSearch agent. */
export interface DeepSearchOptions {
  nodeId: string;
  subtask: Subtask;
  tools: ResearchTools;
  xot: XotMemory;
  language: string;
  /** Model-driven steps at most (the agent's default when absent). */
  maxSteps?: number;
  /** Results per search. Default 5. */
  topK?: number;
  /** Returns a reason when exploration must stop (budget), else null. */
  shouldStop: () => string | null;
}

/** What a DeepSearch agent hands back. */
export interface DeepSearchResult {
  nodeId: string;
  title: string;
  subReport: string;
  evidence: Evidence[];
  /** Steps run, a seed step included. */
  steps: number;
  toolCalls: number;
  failedCalls: number;
  stopReason: string;
}

/** One step of an agent's trajectory: its thought, then the outcome of each of its actions. */
export interface TrajectoryStep {
  thought: string;
  observations: Observation[];
}

/** What makes an agent: its first step (if it does not choose it) and its step prompt. */
export interface AgentKind {
  /** Model steps when the options name none. */
  defaultMaxSteps: number;
  /** Actions run before the first model step, with the thought recorded for them. */
  seed?: { thought: string; actions: SearchAction[] };
  /** The prompt of model step `step` (1-based) over the trajectory so far. */
  prompt(input: {
    trajectory: readonly TrajectoryStep[];
    step: number;
    evidenceCount: number;
    agent: string;
  }): string;
  /** Output tokens of a step. */
  maxOutputTokens: number;
}

/** Error codes of a failed page reading that mean the reader model failed, not the fetch. */
const READER_FAILURES = new Set(["STRUCTURED_OUTPUT_FAILED", "PROVIDER_ERROR", "RATE_LIMITED"]);

/** Runs one DeepSearch agent. Never throws except on cancellation. */
export async function runSearchAgent(
  ctx: RunContext,
  options: DeepSearchOptions,
  kind: AgentKind,
): Promise<DeepSearchResult> {
  const { subtask, tools, xot, nodeId } = options;
  const agent = `search:${nodeId}`;
  const runner = new ActionRunner(ctx, tools, options.topK ?? 5);
  const { evidence } = runner;
  const execute = actionExecutor(ctx, runner, agent);
  const trajectory: TrajectoryStep[] = [];
  let steps = 0;
  if (kind.seed) {
    trajectory.push({ thought: kind.seed.thought, observations: await execute(kind.seed.actions) });
    steps++;
  }
  let stopReason = "step-cap";
  const schema = stepSchema(tools.available);
  for (let step = 1; step <= (options.maxSteps ?? kind.defaultMaxSteps); step++) {
    const reason = options.shouldStop() ?? (ctx.signal.aborted ? "cancelled" : null);
    if (reason) {
      stopReason = reason;
      break;
    }
    const prompt = kind.prompt({ trajectory, step, evidenceCount: evidence.length, agent });
    const answer = await askStep(ctx, { agent, step, schema, prompt, kind, evidence: evidence.length });
    if ("stopReason" in answer) {
      stopReason = answer.stopReason;
      break;
    }
    const { decision } = answer;
    steps++;
    xot.append({ agent, kind: "thought", text: decision.thought });
    for (const finding of decision.findings.slice(0, 3))
      xot.append({ agent, kind: "finding", text: finding });
    const actions = decision.actions.slice(0, MAX_ACTIONS);
    const observations = actions.length > 0 ? await execute(actions) : [];
    if (actions.length > 0) trajectory.push({ thought: decision.thought, observations });
    // A step that is done runs its actions as the last ones: no further step is asked for,
    // unless one of them failed (the agent then sees the failure and decides again).
    if ((decision.done && observations.every((o) => o.ok)) || actions.length === 0) {
      stopReason = "done";
      break;
    }
  }
  const subReport = await writeSubReport(ctx, {
    subtask,
    evidence,
    language: options.language,
    failures: failuresOf(trajectory),
  });
  xot.append({ agent, kind: "sub-report", text: subReport });
  const { toolCalls, failedCalls } = runner;
  return { nodeId, title: subtask.title, subReport, evidence, steps, toolCalls, failedCalls, stopReason };
}

type StepDecision = z.infer<ReturnType<typeof stepSchema>>;

/** One model step; a failure becomes the agent's stop reason (and a warning unless a budget limit). */
async function askStep(
  ctx: RunContext,
  input: {
    agent: string;
    step: number;
    schema: ReturnType<typeof stepSchema>;
    prompt: string;
    kind: AgentKind;
    evidence: number;
  },
): Promise<{ decision: StepDecision } | { stopReason: string }> {
  try {
    ctx.budget.startIteration();
    const { value } = await ctx.structured({
      role: "searcher",
      schema: input.schema,
      system: searcherSystem(ctx),
      // Every agent's steps open with the question (and the same instructions).
      sharedPrefix: `Overall question: ${ctx.query}\n`,
      prompt: input.prompt,
      maxOutputTokens: input.kind.maxOutputTokens,
    });
    return { decision: value };
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    const limit = exceededLimit(error);
    const stopReason = limit ? `budget:${limit}` : isDossierError(error) ? `error:${error.code}` : "error";
    if (!limit)
      ctx.emit({
        type: "warning",
        code: "SEARCH_STEP_FALLBACK",
        message: `${input.agent}: step ${input.step} failed (${stopReason}); writing the sub-report from ${input.evidence} evidence item(s)`,
      });
    return { stopReason };
  }
}

/**
 * Runs a step's actions with `runner`; a page the reader model could not read is recorded as a
 * `READER_FALLBACK` warning (the agent sees the failed observation and goes on).
 */
function actionExecutor(
  ctx: RunContext,
  runner: ActionRunner,
  agent: string,
): (actions: SearchAction[]) => Promise<Observation[]> {
  return async (actions) => {
    const observations = await runner.execute(actions);
    for (const o of observations) {
      if (!o.ok && o.action.startsWith("read_page") && READER_FAILURES.has(o.error?.code ?? "")) {
        ctx.emit({
          type: "warning",
          code: "READER_FALLBACK",
          message: `${agent}: the page could not be read (${o.error?.code}); going on with the search results`,
        });
      }
    }
    return observations;
  };
}

function failuresOf(trajectory: readonly TrajectoryStep[]): string[] {
  return trajectory.flatMap((h) =>
    h.observations.filter((o) => !o.ok).map((o) => `${o.action}: ${o.error?.code}`),
  );
}
