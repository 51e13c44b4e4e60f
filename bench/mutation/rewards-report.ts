/**
 * The rewards of reports and searches: MindDR's report and search rewards and their lambda schedule, the citation reward, the report-format reward and the answer judge.
 */

import type { MutationGroup } from "./module.ts";

export const rewardsReport: MutationGroup = {
  name: "rewards-report",
  modules: [
    {
      file: "src/train/rewards/minddr-report.ts",
      tests: ["src/train/rewards/minddr-report.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/train/rewards/minddr-search.ts",
      tests: ["src/train/rewards/minddr-search.test.ts", "src/train/rewards/minddr-search-edges.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/train/rewards/minddr-lambdas.ts",
      tests: ["src/train/rewards/minddr-lambdas.test.ts", "src/train/rewards/minddr-lambdas-config.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/train/rewards/citation-reward.ts",
      tests: ["src/train/rewards/citation-reward.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/train/rewards/report-format.ts",
      tests: ["src/train/rewards/report-format.test.ts", "src/train/rewards/report-format-detection.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/train/rewards/answer-judge.ts",
      tests: ["src/train/rewards/answer-judge.test.ts"],
      timeoutMs: 5000,
    },
  ],
};
