/**
 * The protocol codecs of WARP (JSON and native) and the sampling loop every codec goes through.
 */

import type { MutationGroup } from "./module.ts";

export const codecsWarp: MutationGroup = {
  name: "codecs-warp",
  modules: [
    { file: "src/kit/protocol/sample.ts", tests: ["src/strategies/warp/refusals.test.ts"], timeoutMs: 5000 },
    {
      file: "src/strategies/warp/json-codec.ts",
      tests: ["src/strategies/warp/refusals.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/strategies/warp/native/codecs.ts",
      tests: ["src/strategies/warp/native/golden-replay.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/strategies/warp/native/format.ts",
      tests: ["src/strategies/warp/native/format.test.ts"],
      timeoutMs: 5000,
    },
  ],
};
