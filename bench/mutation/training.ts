/**
 * The advantage estimators and the DAPO filter, and the rl, sft and dpo exports (what is masked, what is left out).
 */

import type { MutationGroup } from "./module.ts";

export const training: MutationGroup = {
  name: "training",
  modules: [
    { file: "src/train/advantages/grpo.ts", tests: ["src/train/advantages/grpo.test.ts"], timeoutMs: 5000 },
    { file: "src/train/advantages/rloo.ts", tests: ["src/train/advantages/rloo.test.ts"], timeoutMs: 5000 },
    {
      file: "src/train/advantages/dapo-filter.ts",
      tests: ["src/train/advantages/dapo-filter.test.ts"],
      timeoutMs: 5000,
    },
    { file: "src/train/export/rl.ts", tests: ["src/train/export/rl.test.ts"], timeoutMs: 5000 },
    {
      file: "src/train/export/rl-trajectory.ts",
      tests: ["src/train/export/rl-trajectory.test.ts"],
      timeoutMs: 5000,
    },
    { file: "src/train/export/sft.ts", tests: ["src/train/export/sft.test.ts"], timeoutMs: 5000 },
    { file: "src/train/export/dpo.ts", tests: ["src/train/export/dpo.test.ts"], timeoutMs: 5000 },
  ],
};
