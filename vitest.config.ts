import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "web/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // One process per test file, isolated: test files register process handlers and
    // module-level hooks. Vitest's default in `run` is one worker fewer than the cores, which
    // is a single worker on a 2-core machine; the main process does little, so use every core
    // and at least two.
    pool: "forks",
    maxWorkers: Math.max(2, availableParallelism() - 1),
    unstubEnvs: true,
    // No test resolves a host name through the system resolver.
    setupFiles: ["./test/no-system-dns.ts"],
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
