/**
 * The protocol codecs of SMTL (tags and JSON, answer and research modes) and MaMs.
 */

import type { MutationGroup } from "./module.ts";

export const codecsSmtlMams: MutationGroup = {
  name: "codecs-smtl-mams",
  modules: [
    { file: "src/strategies/smtl/tags.ts", tests: ["src/strategies/smtl/protocol.test.ts"], timeoutMs: 5000 },
    {
      file: "src/strategies/smtl/protocol.ts",
      tests: ["src/strategies/smtl/protocol.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/strategies/smtl/native-format.ts",
      tests: ["src/strategies/smtl/native-format.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/strategies/smtl/json-protocol.ts",
      tests: ["src/strategies/smtl/refusals.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/strategies/smtl/research-protocol.ts",
      tests: ["src/strategies/smtl/research.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/strategies/mams/protocol.ts",
      tests: ["src/strategies/mams/protocol.test.ts"],
      timeoutMs: 5000,
    },
  ],
};
