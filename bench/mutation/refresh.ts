/**
 * A refresh's change detection: passage matching, the page check (changed, vanished, new pages),
 * the searches asked again, the report's sections, and the part of the refresh strategy that
 * decides which sections are stale and what a stale one is written from.
 */

import type { MutationGroup } from "./module.ts";

export const refresh: MutationGroup = {
  name: "refresh",
  modules: [
    {
      file: "src/runtime/refresh-text.ts",
      tests: ["src/runtime/refresh-text.test.ts", "src/runtime/refresh-text-markup.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/runtime/refresh-pages.ts",
      tests: [
        "src/runtime/refresh-page-check.test.ts",
        "src/runtime/refresh-page-passages.test.ts",
        "src/runtime/refresh-check.test.ts",
      ],
      timeoutMs: 5000,
    },
    {
      file: "src/runtime/refresh-check.ts",
      tests: ["src/runtime/refresh-check.test.ts", "src/runtime/refresh-check-snippets.test.ts"],
      timeoutMs: 5000,
    },
    {
      file: "src/runtime/refresh-sections.ts",
      tests: ["src/runtime/refresh-sections-split.test.ts", "src/runtime/refresh-report.test.ts"],
      timeoutMs: 5000,
    },
    {
      // runRefresh from its start to the body's assembly: the page checks, the new pages, the
      // child's registry and the stale-section decision (the report, the diff and the event after
      // it are refresh-report.ts's and refresh-diff.ts's, tested there).
      file: "src/runtime/refresh-strategy.ts:57-220",
      tests: ["src/runtime/refresh-stale-sections.test.ts"],
      timeoutMs: 5000,
    },
  ],
};
