import { defineConfig } from "vitest/config";

// Two fixture files in one worker sharing its module cache, as in the project's own config.
export default defineConfig({
  test: {
    include: ["test/research/strict-fixtures/*.fixture.ts"],
    isolate: false,
    pool: "threads",
    maxWorkers: 1,
    setupFiles: ["./test/no-system-dns.ts", "./test/strict-scripts.ts"],
  },
});
