/**
 * The smtl agent's tool steps, one protocol for all its loops (deep search, deep research, JSON
 * or native): a call already made in the run is not made again, a step runs at most 10 calls and
 * no more than the tool-call budget has left, the calls of a step run at once, what they find is
 * the evidence the agent may cite (`retrieved`), and every step ends with a `step-end` event.
 */

import type { Observation } from "../../kit/observation.ts";
import type { PageWindow, ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { runAction } from "../../kit/search-actions.ts";
import { renderStep } from "./prompts.ts";
import { describeCall, MAX_CALLS_PER_STEP, type SmtlCall, toAction } from "./protocol.ts";

/** The figures of the steps a loop keeps (shared with the loop's own figures object). */
export interface StepFigures {
  steps: number;
  toolCalls: number;
  callsByStep: number[];
}

/** Options of {@link SmtlSteps}. */
export interface SmtlStepsOptions {
  tools: ResearchTools;
  /** Results per search. */
  topK: number;
  /** How much of a page a read shows the reader. */
  pageWindow: PageWindow;
}

/** The tool steps of one smtl run. */
export class SmtlSteps {
  /** Evidence ids the run's calls retrieved, in order: the only evidence its answer may cite. */
  readonly retrieved = new Set<string>();
  /** Evidence ids of the latest step's observations: what the next reply sees. */
  lastObserved: string[] = [];
  readonly #ctx: RunContext;
  readonly #options: SmtlStepsOptions;
  readonly #figures: StepFigures;
  /** Calls made so far (by their description, lower case) and the step that made each. */
  readonly #made = new Map<string, number>();

  constructor(ctx: RunContext, options: SmtlStepsOptions, figures: StepFigures) {
    this.#ctx = ctx;
    this.#options = options;
    this.#figures = figures;
  }

  /** The step that made `call`, or undefined. */
  madeIn(call: SmtlCall): number | undefined {
    return this.#made.get(keyOf(call));
  }

  /** The calls of a reply not made before (nor earlier in the same reply). */
  fresh(calls: readonly SmtlCall[]): SmtlCall[] {
    const seen = new Set<string>();
    return calls.filter((c) => {
      const key = keyOf(c);
      if (this.#made.has(key) || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  /** Calls the next step may run: the per-step cap, within the tool-call budget left. */
  room(): number {
    const { limits, used } = this.#ctx.budget.snapshot();
    const left =
      limits.maxToolCalls === undefined ? MAX_CALLS_PER_STEP : limits.maxToolCalls - used.toolCalls;
    return Math.min(MAX_CALLS_PER_STEP, left);
  }

  /**
   * Runs `batch` as one step, at once; the observations in the order of the calls. The caller
   * has chosen the batch (fresh calls, within {@link room}).
   */
  async execute(batch: readonly SmtlCall[]): Promise<Observation[]> {
    const ctx = this.#ctx;
    const step = ++this.#figures.steps;
    for (const call of batch) this.#made.set(keyOf(call), step);
    ctx.emit({ type: "phase", phase: "searching", detail: `step ${step}: ${batch.length} calls` });
    const { tools, topK, pageWindow } = this.#options;
    const observations = await Promise.all(
      batch.map((call) => runAction(ctx, tools, toAction(call), topK, pageWindow)),
    );
    for (const o of observations) for (const e of o.evidence) this.retrieved.add(e.id);
    this.lastObserved = [...new Set(observations.flatMap((o) => o.evidence.map((e) => e.id)))];
    this.#figures.toolCalls += batch.length;
    this.#figures.callsByStep.push(batch.length);
    ctx.emit({
      type: "step-end",
      step,
      toolCalls: batch.length,
      failed: observations.filter((o) => !o.ok).length,
    });
    return observations;
  }

  /**
   * Runs a JSON reply's fresh `calls` as one step (at least one, within {@link room}) and
   * renders the results for the model, with a line for each call not run: `repeated` ones (made
   * before) and those past the budget.
   */
  async run(calls: readonly SmtlCall[], repeated: readonly SmtlCall[] = []): Promise<string> {
    const batch = calls.slice(0, Math.max(1, this.room()));
    const observations = await this.execute(batch);
    const step = this.#figures.steps;
    const notes = [
      ...repeated.map(
        (c) => `- ${describeCall(c)} → not run again: it was made in step ${this.madeIn(c) ?? "?"}`,
      ),
      ...calls
        .slice(batch.length)
        .map((c) => `- ${describeCall(c)} → not run: the tool-call budget is spent`),
    ];
    const results = renderStep(step, batch.map(describeCall), observations, this.#ctx.evidence);
    return notes.length ? `${results}\n${notes.join("\n")}` : results;
  }
}

const keyOf = (call: SmtlCall) => describeCall(call).toLowerCase();
