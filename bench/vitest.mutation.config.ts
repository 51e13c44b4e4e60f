/**
 * The test configuration of `npm run bench:mutation`: the project's, with
 * `bench/mutation-setup.ts` run first (see there why each mutant run needs a fresh module registry).
 */

import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import base from "../vitest.config.ts";

const setupFiles = base.test?.setupFiles ?? [];

export default defineConfig({
  ...base,
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    ...base.test,
    setupFiles: ["./bench/mutation-setup.ts", ...(Array.isArray(setupFiles) ? setupFiles : [setupFiles])],
  },
});
