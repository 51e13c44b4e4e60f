import { describe, expect, it } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import { minddrSearchReward } from "./minddr-search.ts";
import { REWARD_NAMES, REWARDS, rewardByName } from "./registry.ts";
import { rubricGeneratorReward } from "./rubric-generator.ts";

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
