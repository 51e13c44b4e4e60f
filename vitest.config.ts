import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "web/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Each test file runs isolated in a fresh worker thread (test files register process
    // handlers and module-level hooks). Threads start far cheaper than forked processes: on a
    // 2-core machine the suite spends about a quarter less CPU than with `forks`. Tests that
    // need a real process (signals, exit codes) spawn one themselves (src/cli/bin-smoke.test.ts).
    pool: "threads",
    // Vitest's default in `run` is one worker fewer than the cores, a single worker on a 2-core
    // machine; the main process does little, so use every core and at least two. (Three
    // workers on two cores were no faster.)
    maxWorkers: Math.max(2, availableParallelism() - 1),
    unstubEnvs: true,
    // No test resolves a host name through the system resolver.
    setupFiles: ["./test/no-system-dns.ts"],
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
