/**
 * The seeds' rewards by name. Each entry names the paper section it implements, what it scores
 * (`run`: a recorded run and its row; `preference`: a rubric generator's completion and a
 * preference row) and the function that computes it; the function's own dependencies (judges,
 * scorers) and options are in its module.
 */

import { DossierError } from "../../core/errors.ts";
import { minddrReportReward } from "./minddr-report.ts";
import { minddrSearchReward } from "./minddr-search.ts";
import { rubricReward } from "./rubric.ts";
import { rubricGeneratorReward } from "./rubric-generator.ts";
import { smtlReward } from "./smtl.ts";
import { warpReward } from "./warp.ts";
import { warpAtomicSampleReward } from "./warp-atomic-sample.ts";

/** One registered reward. */
export interface RewardEntry {
  name: string;
  /** Paper and section. */
  source: string;
  /** The equation, in one line. */
  equation: string;
  input: "run" | "preference";
  compute: (...args: never[]) => Promise<{ reward: number }>;
}

/** The rewards, by name. */
export const REWARDS = {
  "minddr-search": {
    name: "minddr-search",
    source: "MindDR §5.2, Eq. 6–9",
    equation: "R = λ_ORM·R_ORM + λ_PRM·R_PRM + (1/T)·Σ_t[λ_tool·r_tool(t) + λ_format·r_format(t)]",
    input: "run",
    compute: minddrSearchReward,
  },
  "minddr-report": {
    name: "minddr-report",
    source: "MindDR §5.3, Eq. 10–12",
    equation: "R_Report = R_RACE + λ_c·R_cite + λ_f·R_format",
    input: "run",
    compute: minddrReportReward,
  },
  warp: {
    name: "warp",
    source: "AgentCPM-Report §2.3.2, Table 1, Appendix A.6",
    equation: "R = Σ_d W_d·s_d / Σ_d W_d (pipeline); per action the mean of its Table 1 components",
    input: "run",
    compute: warpReward,
  },
  "warp-atomic": {
    name: "warp-atomic",
    source: "AgentCPM-Report §2.3.2, Table 1, Appendix A.6.1",
    equation:
      "R = the mean of the sampled action's Table 1 components against the teacher's reference; 0 for no valid action",
    input: "run",
    compute: warpAtomicSampleReward,
  },
  smtl: {
    name: "smtl",
    source: "SMTL §5.2",
    equation: "R = 1 if the judge finds the answer correct and no tool call broke the format, else 0",
    input: "run",
    compute: smtlReward,
  },
  "rubric-generator": {
    name: "rubric-generator",
    source: "Query-specific rubrics §3.3, Eq. 1–3",
    equation: "R_total = λ_pref·R_pref + λ_llm·R_llm + R_fmt",
    input: "preference",
    compute: rubricGeneratorReward,
  },
  rubric: {
    name: "rubric",
    source: "Query-specific rubrics §3.4, Eq. 2",
    equation: "R = S(report | rubric) = Σ_k w_k·v_k / Σ_k w_k",
    input: "run",
    compute: rubricReward,
  },
} as const satisfies Record<string, RewardEntry>;

/** A reward's name. */
export type RewardName = keyof typeof REWARDS;
/** Every reward's name, in registry order. */
export const REWARD_NAMES = Object.keys(REWARDS) as RewardName[];

/** The reward of that name; an unknown name is INPUT_INVALID and lists the known ones. */
export function rewardByName(name: string): (typeof REWARDS)[RewardName] {
  if (!Object.hasOwn(REWARDS, name))
    throw new DossierError("INPUT_INVALID", `unknown reward "${name}" (known: ${REWARD_NAMES.join(", ")})`);
  return REWARDS[name as RewardName];
}
