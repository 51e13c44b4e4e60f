/**
 * One warp run in progress: the policy's state S = (question, outline, draft, citations), its
 * protocol's policy and the step meter, what stops exploring (the step cap, a budget limit, the
 * exploration share), the trajectory and the draft snapshots — and what every step of the
 * algorithm does with them: act (one policy action, null when it failed or a limit stopped it),
 * retrieve, record a trajectory step, render a draft as a report.
 */

import type { Evidence } from "../../core/source.ts";
import { explorationGuard } from "../../kit/exploration-budget.ts";
import { type GuardedAction, guardedAction } from "../../kit/guarded-action.ts";
import { assembleReport } from "../../kit/report-assembly.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { draftParts, outlineSkeleton, pruneEmpty, type WarpState } from "./draft.ts";
import { nativeActions } from "./native/policy.ts";
import { jsonActions, type WarpActions, type WarpPolicy, warpPolicy } from "./policy.ts";
import type { DraftSnapshot } from "./pruning.ts";
import { retrieve } from "./retrieval.ts";
import type { WarpOptions } from "./run.ts";
import { type WarpProtocol, warpRoleSampling } from "./sampling.ts";
import { DEFAULT_MAX_STEPS, NATIVE_EXTEND_BUDGET, StepMeter } from "./steps.ts";
import { type UnforcedDecision, unforcedDecision } from "./unforced.ts";

/** Default cap of expansions. */
export const DEFAULT_MAX_EXPANSIONS = 12;

/** What a policy action gave: null when it failed or a limit stopped it (`capped`: the step cap, no fallback). */
export interface Acted<T> {
  value: T | null;
  capped: boolean;
}

/** A warp run in progress (see the module comment). */
export class WarpRun {
  readonly ctx: RunContext;
  readonly options: WarpOptions;
  readonly language: string;
  /** Forced-expansion mode: expand until the cap, no TERMINATE, then prune. */
  readonly forced: boolean;
  /** Most expansions (forced mode: exactly this many). */
  readonly cap: number;
  readonly protocol: WarpProtocol;
  readonly steps: StepMeter;
  readonly policy: WarpPolicy;
  /** The exploration share: a budget limit name once it is reached. */
  readonly shouldStop: () => string | null;
  readonly state: WarpState;
  /** Evidence ids each written section was given, by section id. */
  readonly citations = new Map<string, ReadonlySet<string>>();
  /** Sections expanded so far. */
  readonly expanded = new Set<string>();
  /** Leaves whose drafting was attempted (a leaf without evidence stays unwritten). */
  readonly attempted = new Set<string>();
  readonly snapshots: DraftSnapshot[] = [];
  /** Why exploration stopped (a budget limit, the step cap), or null while it goes on. */
  stopReason: string | null = null;
  /** Trajectory steps recorded. */
  step = 0;
  /** WRITE actions of the policy that succeeded (an extractive fallback is not one). */
  writes = 0;
  expansions = 0;
  readonly #pagesRead = new Set<string>();
  readonly #guarded: GuardedAction;
  readonly #deepen: WarpActions["deepen"]["codec"];

  constructor(ctx: RunContext, options: WarpOptions) {
    this.ctx = ctx;
    this.options = options;
    this.language = options.language;
    this.forced = options.forceExpand !== undefined;
    this.cap = this.forced ? options.forceExpand! : (options.maxExpansions ?? DEFAULT_MAX_EXPANSIONS);
    this.shouldStop = explorationGuard(ctx, options.explorationShare ?? 0.9);
    this.protocol = options.protocol ?? "json";
    this.steps = new StepMeter(options.maxSteps ?? DEFAULT_MAX_STEPS);
    const sampling = options.sampling ?? warpRoleSampling({ protocol: this.protocol });
    // Forced expansion in the native protocol: the extend budget leaves room for the N expansions.
    const extendBudget = this.forced ? Math.max(NATIVE_EXTEND_BUDGET, this.cap) : NATIVE_EXTEND_BUDGET;
    const actions =
      this.protocol === "native"
        ? nativeActions(ctx, sampling, {
            extendBudget,
            ...(options.intros ? { intros: options.intros } : {}),
          })
        : jsonActions(ctx, sampling);
    this.policy = warpPolicy(ctx, this.steps, actions);
    this.#deepen = actions.deepen.codec;
    this.state = {
      question: ctx.query,
      title: ctx.query,
      outline: { sections: [] },
      citations: this.citations,
      expanded: this.expanded,
    };
    this.#guarded = guardedAction(ctx, (reason) => this.stop(reason));
  }

  /** Stops exploring; the first reason stands. */
  stop(reason: string): void {
    this.stopReason ??= reason;
  }

  /** The state as an action sees it (the draft itself is replayed from earlier WRITE answers). */
  seen(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      outline: outlineSkeleton(this.state.outline),
      written: [...this.citations.keys()],
      expanded: [...this.expanded],
      ...extra,
    };
  }

  /**
   * Forced-expansion mode: the deepening decision request the policy would have at this state
   * without the forcing (unforced.ts), recorded for trajectory pruning; `{}` otherwise.
   */
  unforced(): { unforced?: UnforcedDecision } {
    if (!this.forced) return {};
    const ordinary = this.options.maxExpansions ?? DEFAULT_MAX_EXPANSIONS;
    const input = {
      state: this.state,
      language: this.language,
      forced: true,
      expansionsLeft: this.cap - this.expansions,
    };
    return { unforced: unforcedDecision(this.#deepen, this.protocol, input, ordinary - this.expansions) };
  }

  /** A `trajectory-step` event: the action, the state it saw, its answer. */
  record(action: string, answer: unknown, before: Record<string, unknown>): void {
    this.ctx.emit({ type: "trajectory-step", step: ++this.step, action, state: before, answer });
  }

  /**
   * One policy action: null when it failed (a warning of `code`; the caller falls back) or when a
   * limit stopped exploration — a budget limit, or the step cap (`capped`: no answer, no
   * fallback). Cancellation rethrows.
   */
  async act<T>(code: string, message: string, fn: () => Promise<T | null>): Promise<Acted<T>> {
    if (this.steps.spent()) {
      this.stop("step-cap");
      return { value: null, capped: true };
    }
    let capped = false;
    const value = await this.#guarded(code, message, async () => {
      const answer = await fn();
      capped = answer === null;
      return answer;
    });
    return { value, capped };
  }

  /** Runs a SEARCH's keywords; with a `goal`, web pages are read for it. */
  async search(keywords: string[], cap: number, goal = ""): Promise<Evidence[]> {
    const pages = goal ? (this.options.readPages ?? 1) : 0;
    const r = await retrieve(this.ctx, this.options.tools, keywords, cap, {
      pages,
      goal,
      alreadyRead: this.#pagesRead,
    });
    if (r.budget) this.stop(`budget:${r.budget}`);
    return r.passages;
  }

  /** A draft as the report. */
  render(snap: DraftSnapshot, reason: string) {
    return assembleReport(this.ctx, {
      title: this.state.title,
      outline: pruneEmpty(snap.outline),
      parts: draftParts({ outline: snap.outline, citations: this.citations }),
      language: this.language,
      stopReason: reason,
    });
  }
}
