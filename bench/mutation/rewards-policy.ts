/**
 * The rewards of policies and rubrics: the rubric reward and its generator, SMTL's reward, WARP's pipeline and atomic-skill rewards, and the registry that picks a reward by name.
 */

import type { MutationGroup } from "./module.ts";

export const rewardsPolicy: MutationGroup = {
  name: "rewards-policy",
  modules: [
    { file: "src/train/rewards/rubric.ts", tests: ["src/train/rewards/rubric.test.ts"], timeoutMs: 5000 },
    {
      file: "src/train/rewards/rubric-generator.ts",
      tests: ["src/train/rewards/rubric-generator.test.ts"],
      timeoutMs: 5000,
    },
    { file: "src/train/rewards/smtl.ts", tests: ["src/train/rewards/smtl.test.ts"], timeoutMs: 5000 },
    { file: "src/train/rewards/warp.ts", tests: ["src/train/rewards/warp.test.ts"], timeoutMs: 5000 },
    {
      file: "src/train/rewards/warp-pipeline.ts",
      tests: ["src/train/rewards/warp-pipeline.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/train/rewards/warp-atomic.ts",
      tests: ["src/train/rewards/warp-atomic.test.ts", "src/train/rewards/warp-atomic-actions.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/train/rewards/warp-atomic-sample.ts",
      tests: ["src/train/rewards/warp-atomic-sample.test.ts"],
      timeoutMs: 5000,
    },
    { file: "src/train/rewards/registry.ts", tests: ["src/train/rewards/registry.test.ts"], timeoutMs: 5000 },
  ],
};
