/**
 * The advantage estimators and the DAPO filter, and the rl, sft and dpo exports (what is masked, what is left out).
 */

import type { MutationGroup } from "./module.ts";

const dir = (folder: string, files: string[]) => files.map((f) => `src/train/${folder}/${f}.test.ts`);

export const training: MutationGroup = {
  name: "training",
  modules: [
    {
      file: "src/train/advantages/grpo.ts",
      tests: dir("advantages", ["grpo", "grpo-small-groups"]),
      timeoutMs: 5000,
    },
    {
      file: "src/train/advantages/rloo.ts",
      tests: dir("advantages", ["rloo", "rloo-small-groups"]),
      timeoutMs: 5000,
    },
    {
      file: "src/train/advantages/dapo-filter.ts",
      tests: dir("advantages", ["dapo-filter", "dapo-tolerance"]),
      timeoutMs: 5000,
    },
    {
      file: "src/train/export/rl.ts",
      tests: dir("export", ["rl", "rl-groups", "rl-line-fields", "rl-warp-pruning", "rl-trajectory"]),
      timeoutMs: 5000,
    },
    {
      file: "src/train/export/rl-trajectory.ts",
      tests: dir("export", ["rl-trajectory", "rl-trajectory-branches"]),
      timeoutMs: 5000,
    },
    {
      file: "src/train/export/sft.ts",
      tests: dir("export", ["sft", "sft-conversations", "sft-refusals", "sft-record-shape"]),
      timeoutMs: 5000,
    },
    {
      file: "src/train/export/dpo.ts",
      tests: dir("export", ["dpo", "dpo-outputs"]),
      timeoutMs: 5000,
    },
  ],
};
