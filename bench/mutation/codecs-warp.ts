/**
 * The protocol codecs of WARP (JSON and native) and the sampling loop every codec goes through.
 * The planner's and searcher's JSON codecs are mutated over their lines only: the schemas that
 * refuse a reply, the instructions and prompt they render, and the action a valid value becomes.
 */

import type { MutationGroup } from "./module.ts";

export const codecsWarp: MutationGroup = {
  name: "codecs-warp",
  modules: [
    { file: "src/kit/protocol/sample.ts", tests: ["src/kit/protocol/sample.test.ts"], timeoutMs: 5000 },
    {
      file: "src/strategies/warp/json-codec.ts",
      tests: ["src/strategies/warp/json-codec.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/strategies/warp/native/codecs.ts",
      tests: [
        "src/strategies/warp/native/golden-replay.test.ts",
        "src/strategies/warp/native/codec-requests.test.ts",
      ],
      timeoutMs: 5000,
    },
    {
      file: "src/strategies/warp/native/format.ts",
      tests: [
        "src/strategies/warp/native/format.test.ts",
        "src/strategies/warp/native/answer-refusals.test.ts",
      ],
      timeoutMs: 5000,
    },
    {
      // planText through deepenJsonCodec: the language refinement, the deepening schema, the
      // instructions and prompts, and the two codecs.
      file: "src/strategies/warp/planner.ts:55-267",
      tests: ["src/strategies/warp/planner-json-protocol.test.ts"],
      timeoutMs: 5000,
    },
    {
      // searcherSystem through distinctKeywords.
      file: "src/strategies/warp/searcher.ts:31-98",
      tests: ["src/strategies/warp/searcher-json-protocol.test.ts"],
      timeoutMs: 5000,
    },
  ],
};
