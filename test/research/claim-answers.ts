/**
 * Scripted answers of claim verification (`verify: judge | rewrite`): the judge finds the
 * report's first claim unsupported (unless it is a revised one) and every other supported,
 * quoting nothing; the writer revises each unsupported claim into a sentence marked
 * REVISED-CLAIM (and tries to cite an id, which the rewrite must strip).
 */

import type { Reply } from "../fake-openai/types.ts";
import { json } from "./replies.ts";

/** Instructions that name the claim judge and the claim rewrite. */
export const CLAIM_MARKERS = {
  judge: "You check a research report's claims against the passages they cite.",
  rewrite: "Each claim below was found unsupported by the passages it cites.",
};

const claimsOf = (user: string) =>
  [...user.matchAll(/<claim n="(\d+)">([\s\S]*?)<\/claim>/g)].map((m) => ({ n: Number(m[1]), text: m[2]! }));

/** The judge's verdicts. */
export function claimJudgeAnswer(user: string): Reply {
  return json({
    verdicts: claimsOf(user).map(({ n, text }) => ({
      claim: n,
      verdict: n === 1 && !text.includes("REVISED-CLAIM") ? "unsupported" : "supported",
      span: "",
      reason: "scripted",
    })),
  });
}

/** The writer's revisions. */
export function claimRewriteAnswer(user: string): Reply {
  return json({
    edits: claimsOf(user).map(({ n }) => ({
      claim: n,
      action: "revise",
      text: "REVISED-CLAIM per the source [E1].",
    })),
  });
}
