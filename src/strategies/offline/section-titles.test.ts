import { describe, expect, it } from "vitest";
import { facetTitle, looksLikeCode, uniqueTitle } from "./section-titles.ts";

describe("offline section titles", () => {
  it("never take a code label for a title", () => {
    for (const code of [
      "warp — warpReward(run, {pipeline, judges?, reference?}) (rewards/warp.ts)",
      "`dossier train export DIR --format sft`",
      "src/train/export/rl.ts",
      "rlRecords(scored, options)",
      "dossier train rollouts --strategy S --group G --out DIR",
      "dossier train export DIR --format sft|dpo|rl|verl",
    ])
      expect(looksLikeCode(code), code).toBe(true);
    for (const title of [
      "Group advantages",
      "Cold-climate performance",
      "热泵在严寒中的表现",
      "What's new in 2026?",
    ])
      expect(looksLikeCode(title), title).toBe(false);
    expect(
      facetTitle("warp", [
        "Training > warp — warpReward(run, {pipeline, judges?}) (rewards/warp.ts)",
        "Rewards > `warp`",
      ]),
    ).toBe("Warp");
  });

  it("take the documents' heading as text, naming the facet first", () => {
    expect(facetTitle("advantages", ["A > **Group advantages**", "A > Other notes here"])).toBe(
      "Group advantages",
    );
  });

  it("use each heading once", () => {
    const used = new Set(["group advantages"]);
    expect(uniqueTitle("Group advantages", "rloo", used)).toBe("Rloo");
    expect(uniqueTitle("Group advantages", "rloo", new Set([...used, "rloo"]))).toBeNull();
    expect(uniqueTitle("Exports", "rloo", used)).toBe("Exports");
  });
});
