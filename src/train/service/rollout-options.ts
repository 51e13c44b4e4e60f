/**
 * The research options of one rollout of a batch, as `dossier train rollouts` gives its runs:
 * the request's shared research options (the row's language when the request names none), the
 * strategy with its options over the paper's sampling (smtl in answer mode unless told), every
 * model call recorded (and its token ids with `tokens`), the rollout's own seed and its tag.
 */

import type { ResearchOptions } from "../../runtime/research-handle.ts";
import type { QuestionRow } from "../question-row.ts";
import { rolloutStrategyOptions } from "../rollouts/rollout-plan.ts";
import type { RolloutRequest } from "./request.ts";

/** The options of rollout `index` of `row` (its run id is added when it starts). */
export function rolloutResearchOptions(
  request: RolloutRequest,
  rollout: { row: QuestionRow; index: number; seed: number },
): ResearchOptions {
  const research = request.research ?? {};
  const { row } = rollout;
  const rowLanguage = typeof row.language === "string" && row.language ? row.language : undefined;
  const language = research.language ?? rowLanguage;
  return {
    ...research,
    ...(language ? { language } : {}),
    strategy: request.strategy,
    strategyOptions: rolloutStrategyOptions(request.strategy, {
      ...request.strategyOptions,
      ...request.sampling,
    }),
    recordCalls: true,
    ...(request.tokens ? { recordTokens: true } : {}),
    seed: rollout.seed,
    rollout: { questionId: row.id, index: rollout.index },
  };
}
