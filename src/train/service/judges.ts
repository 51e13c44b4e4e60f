/**
 * The rewards' judges of the rollout service: the evaluation toolkit's judges behind the
 * service's configured judge model (`DOSSIER_MODEL_JUDGE`, else `DOSSIER_MODEL`), as `dossier
 * train reward` has them — the answer judge asked once per distinct (question, reference,
 * response) within a batch (MindDR's three ORM judges are that judge), WARP's pipeline judge,
 * the rubric item rater and RACE. The judge client is made on the first batch; a service
 * without a judge model refuses every request with MODEL_NOT_CONFIGURED before any rollout.
 */

import { createJudgeClient, type JudgeClient } from "../../eval/rubric/judge-client.ts";
import type { Config } from "../../runtime/config.ts";
import {
  llmAnswerJudge,
  llmPipelineJudge,
  llmRaceScorer,
  llmRubricRater,
  onceEach,
} from "../judges/llm-judges.ts";
import type { RewardJudges } from "../score/score-runs.ts";

/** Judges for each batch, behind the judge model of `config`. */
export function serviceJudges(config: Config): () => RewardJudges {
  let judge: JudgeClient | undefined;
  return () => {
    judge ??= createJudgeClient({ config });
    const { client } = judge;
    // A fresh memo per batch: verdicts are shared within a batch, and the memo goes with it.
    const answer = onceEach(llmAnswerJudge(client));
    return {
      answer,
      orm: [answer, answer, answer],
      pipeline: llmPipelineJudge(client),
      race: llmRaceScorer(client),
      rate: llmRubricRater(client),
    };
  };
}
