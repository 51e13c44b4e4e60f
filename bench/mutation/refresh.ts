/**
 * A refresh's change detection: passage matching, the page check (changed, vanished, new pages) and the report's sections.
 */

import type { MutationGroup } from "./module.ts";

export const refresh: MutationGroup = {
  name: "refresh",
  modules: [
    { file: "src/runtime/refresh-text.ts", tests: ["src/runtime/refresh-text.test.ts"], timeoutMs: 5000 },
    { file: "src/runtime/refresh-pages.ts", tests: ["src/runtime/refresh-check.test.ts"], timeoutMs: 5000 },
    { file: "src/runtime/refresh-check.ts", tests: ["src/runtime/refresh-check.test.ts"], timeoutMs: 5000 },
    {
      file: "src/runtime/refresh-sections.ts",
      tests: ["src/runtime/refresh-report.test.ts"],
      timeoutMs: 5000,
    },
  ],
};
