/**
 * Answers of the scripted research model for the training toolkit's judges: WARP's pipeline
 * judge scores a report on the four dimensions, comprehensiveness by how many passages it cites
 * (so reports that cite more score higher), the other three fixed.
 */

import { PIPELINE_JUDGE_MARKER } from "../../src/train/judges/pipeline-judge.ts";
import type { Reply } from "../fake-openai/types.ts";
import { json } from "./replies.ts";

/** Marker of the pipeline judge's system prompt. */
export const PIPELINE_JUDGE = PIPELINE_JUDGE_MARKER;

/** The pipeline judge: comprehensiveness = citations in the report (at most 10), others 6, 7, 8. */
export function pipelineJudgeAnswer(user: string): Reply {
  const report = /<report>\n([\s\S]*?)\n<\/report>/.exec(user)?.[1] ?? "";
  const citations = (report.match(/\[\d+\]/g) ?? []).length;
  return json({
    rationale: "scripted",
    comprehensiveness: Math.min(10, citations),
    insight: 6,
    instruction_following: 7,
    readability: 8,
  });
}
