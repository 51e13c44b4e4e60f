import { describe, expect, it } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import { minddrReportReward } from "./minddr-report.ts";
import { minddrSearchReward } from "./minddr-search.ts";
import { REWARD_NAMES, REWARDS, rewardByName } from "./registry.ts";
import { rubricReward } from "./rubric.ts";
import { rubricGeneratorReward } from "./rubric-generator.ts";
import { smtlReward } from "./smtl.ts";
import { warpReward } from "./warp.ts";
import { warpAtomicSampleReward } from "./warp-atomic-sample.ts";

describe("the reward registry", () => {
  it("names the seven rewards of the seeds, each under its own name", () => {
    expect(REWARD_NAMES).toEqual([
      "minddr-search",
      "minddr-report",
      "warp",
      "warp-atomic",
      "smtl",
      "rubric-generator",
      "rubric",
    ]);
    for (const name of REWARD_NAMES) {
      expect(REWARDS[name].name).toBe(name);
      expect(REWARDS[name].source).toMatch(/§/);
    }
    expect(rewardByName("minddr-search").compute).toBe(minddrSearchReward);
    expect(rewardByName("rubric-generator")).toMatchObject({
      input: "preference",
      compute: rubricGeneratorReward,
    });
  });

  it("refuses an unknown name, listing the known ones", () => {
    for (const name of ["nope", "toString", "__proto__"]) {
      try {
        rewardByName(name);
        expect.unreachable();
      } catch (error) {
        expect(isDossierError(error, "INPUT_INVALID")).toBe(true);
        expect((error as Error).message).toContain("minddr-search, minddr-report");
      }
    }
  });
});

describe("the reward registry picks what a trainer is scored by", () => {
  it("maps each name to its own function, and every reward but the rubric generator's to rollouts", () => {
    const picked = Object.fromEntries(
      REWARD_NAMES.map((n) => [n, [rewardByName(n).compute, rewardByName(n).input]]),
    );
    expect(picked).toEqual({
      "minddr-search": [minddrSearchReward, "run"],
      "minddr-report": [minddrReportReward, "run"],
      warp: [warpReward, "run"],
      "warp-atomic": [warpAtomicSampleReward, "run"],
      smtl: [smtlReward, "run"],
      "rubric-generator": [rubricGeneratorReward, "preference"],
      rubric: [rubricReward, "run"],
    });
  });

  it("gives every reward its equation and the paper section it implements", () => {
    for (const name of REWARD_NAMES) {
      expect(REWARDS[name].equation, name).toMatch(/^R\S* = \S/);
      expect(REWARDS[name].source, name).toMatch(/^\S.* §\d/);
    }
  });
});
