/**
 * The WARP policy in AgentCPM-Report's own protocol (`protocol: native`), so the released
 * checkpoints run as trained: the four role prompts of prompts.ts, answers in
 * `<thought>`/`<action>` tags checked by format.ts, passages as `bibkey:textidN` and citations
 * as `\cite{textidN}` (turned into evidence ids for the report). The seed's control rules:
 *
 * - An answer that does not parse or validate is not explained back to the model: the state is
 *   unchanged and the same prompt is sampled again. Each failure is a `format-error` event and
 *   counts on its call's `llm-end` (`formatErrors`); every call is a step of the step cap.
 * - The extend budget (`max_extend_step`, 5): entering the deepening spends one, so does each
 *   failed deepening answer; when it is spent the deepening ends.
 * - Sampling is the paper's (temperature 0.7, top-p 0.8, at most 2,048 output tokens) unless
 *   the user set it.
 * - Before the run's first tool call, a search-state answer that finishes (`nop`) or writes
 *   instead of searching is asked once more, the prompt followed by the kit's NO_CALL_YET line
 *   (a `NO_CALL_YET` warning; the seed would only sample again until its step cap); insisting
 *   fails the run with `NO_RESEARCH`.
 */

import type { FlatOutlineSection } from "../../../core/outline.ts";
import type { Evidence } from "../../../core/source.ts";
import { didResearch, NO_CALL_YET, requireResearch } from "../../../kit/research-done.ts";
import type { RunContext } from "../../../kit/run-context.ts";
import type { Role } from "../../../llm/model-spec.ts";
import { expandableSections, idOfPosition, positionOf } from "../draft.ts";
import type { DeepenAction } from "../planner.ts";
import type { Thought, WarpPolicy } from "../policy.ts";
import { NATIVE_MAX_OUTPUT_TOKENS, type Sampling } from "../sampling.ts";
import { NATIVE_EXTEND_BUDGET, type StepMeter } from "../steps.ts";
import {
  type Checked,
  checkExtendPlan,
  checkInitPlan,
  checkSearch,
  checkWrite,
  finishingInstead,
  parseTagged,
} from "./format.ts";
import { citationsToEvidence, keyOfEvidence } from "./keys.ts";
import { extendPlanPrompt, initPlanPrompt, searchPrompt, writePrompt } from "./prompts.ts";
import { cursorName, renderPassages, renderSurvey } from "./render.ts";

/** Options of {@link nativePolicy}. */
export interface NativePolicyOptions {
  /** Deepening entries plus failed deepening answers allowed. Default 5. */
  extendBudget?: number;
}

/** The native policy of one run. */
export function nativePolicy(
  ctx: RunContext,
  steps: StepMeter,
  sampling: Sampling,
  options: NativePolicyOptions = {},
): WarpPolicy {
  const budget = options.extendBudget ?? NATIVE_EXTEND_BUDGET;
  let extendTime = 0;

  /**
   * Samples `prompt` until `check` accepts the answer; null when the step cap is reached
   * first. `onFailure` may end the retries (returning a value to answer with) or throw; `prompt`
   * is read again before each attempt.
   */
  const sample = async <T>(
    role: Role,
    prompt: string | (() => string),
    check: (text: string) => Checked<T>,
    onFailure?: (text: string) => T | undefined,
  ): Promise<(T & Thought & { raw: string }) | null> => {
    for (let attempt = 1; ; attempt++) {
      if (steps.spent()) return null;
      let verdict: Checked<T> | undefined;
      let thought: string | null = null;
      let call: Awaited<ReturnType<RunContext["llm"]["call"]>>;
      try {
        call = await ctx.llm.call(
          {
            role,
            prompt: typeof prompt === "string" ? prompt : prompt(),
            maxOutputTokens: NATIVE_MAX_OUTPUT_TOKENS,
            ...sampling,
          },
          (text) => {
            const tagged = parseTagged(text);
            thought = tagged.thought;
            verdict = check(text);
            return verdict.ok ? null : verdict.error;
          },
        );
      } catch (error) {
        steps.spend(1);
        throw error;
      }
      steps.spend(1);
      const { result } = call;
      if (verdict?.ok) {
        return {
          ...verdict.value,
          ...(thought === null ? {} : { thought }),
          raw: parseTagged(result.text).action ?? "",
        };
      }
      ctx.emit({
        type: "format-error",
        callId: result.callId,
        role,
        model: result.model,
        attempt,
        error: verdict && !verdict.ok ? verdict.error : "invalid answer",
        excerpt: result.text.slice(0, 300),
      });
      const ended = onFailure?.(result.text);
      if (ended !== undefined) return { ...ended, raw: "" };
    }
  };

  const base = (language: string) => ({ query: ctx.query, date: ctx.currentDate, language });

  return {
    async search({ state, target, language }) {
      const prompt = searchPrompt({
        ...base(language),
        outline: renderSurvey(state.title, state.outline, { cursor: target?.id, abbreviate: true }),
        instruction: instructionFor(target),
      });
      // Before the first tool call, finishing or writing instead of searching is asked once more.
      let reasked = false;
      const answer = await sample(
        "searcher",
        () => (reasked ? `${prompt}\n\n${NO_CALL_YET}` : prompt),
        (text) => checkSearch(parseTagged(text).action),
        (text) => {
          const instead = didResearch(ctx) ? null : finishingInstead(parseTagged(text).action);
          if (!instead) return undefined;
          const did = instead === "finish" ? "answered nop" : "wrote";
          if (reasked)
            requireResearch(ctx, {
              stopReason: "completed",
              why: `the policy ${did} before its first tool call, and again when asked once more`,
            });
          reasked = true;
          ctx.emit({
            type: "warning",
            code: "NO_CALL_YET",
            message: `the policy ${did} before its first tool call; asked once more`,
          });
          return undefined;
        },
      );
      if (!answer) return null;
      const keywords = [...new Set(answer.keywords)];
      return { name: "search", keywords, ...thoughtOf(answer) };
    },

    async initialize({ passages, language }) {
      const prompt = initPlanPrompt({ ...base(language), information: passageBlock(ctx, passages) });
      const answer = await sample("planner", prompt, (text) =>
        checkInitPlan(parseTagged(text).action, language),
      );
      if (!answer) return null;
      return {
        name: "initialize",
        title: answer.title.trim(),
        sections: answer.sections,
        ...thoughtOf(answer),
        native: "init-plan",
      };
    },

    async write({ state, target, passages, language }) {
      const keys = new Set(passages.map((p) => keyOfEvidence(p.id)));
      const prompt = writePrompt({
        ...base(language),
        survey: renderSurvey(state.title, state.outline, { cursor: target.id, abbreviate: true }),
        instruction: instructionFor(target),
        information: passageBlock(ctx, passages),
      });
      const answer = await sample("writer", prompt, (text) =>
        checkWrite(parseTagged(text).action, { language, keys }),
      );
      if (!answer) return null;
      return {
        name: "write",
        position: positionOf(target.id),
        content: citationsToEvidence(answer.content),
        ...thoughtOf(answer),
        raw: answer.content,
      };
    },

    async deepen({ state, language, forced }) {
      // Entering the deepening spends one unit of the extend budget.
      if (extendTime >= budget)
        return { name: "terminate", reason: `extend budget spent (${budget})` } satisfies DeepenAction;
      extendTime++;
      const expandable = new Set(expandableSections(state).map((s) => positionOf(s.id)));
      const prompt = extendPlanPrompt({
        ...base(language),
        report: renderSurvey(state.title, state.outline, { abbreviate: false }),
        forced,
        candidates: [...expandable],
      });
      const ENDED = { name: "nop" as const, ended: true };
      const answer = await sample(
        "planner",
        prompt,
        (text) => checkExtendPlan(parseTagged(text).action, { language, expandable, nop: !forced }),
        () => {
          // A failed answer spends one more; past the budget the deepening ends.
          const before = extendTime++;
          return before >= budget ? ENDED : undefined;
        },
      );
      if (!answer) return null;
      if ("ended" in answer) return { name: "terminate", reason: `extend budget spent (${budget})` };
      if (answer.name === "nop") return { name: "terminate", ...thoughtOf(answer), native: "nop" };
      return {
        name: "expand",
        position: positionOf(idOfPosition(answer.position)!),
        subsections: answer.subsections,
        ...thoughtOf(answer),
        native: "extend-plan",
      };
    },
  };
}

const thoughtOf = (answer: { thought?: string }): Thought =>
  answer.thought === undefined ? {} : { thought: answer.thought };

/** The Analyst's instruction for the next node. */
function instructionFor(target?: FlatOutlineSection): string {
  return `Update ${cursorName(target?.id)} next.`;
}

function passageBlock(ctx: RunContext, passages: readonly Evidence[]): string {
  return renderPassages(passages, (id) => ctx.evidence.getSource(id));
}
