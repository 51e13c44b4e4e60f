import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "web/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Test files share their worker thread and its module cache (`isolate: false`): the suite
    // then imports jsdom, the AI SDK and the engine once per worker instead of once per file,
    // which took most of the run's time (2 m 10 s → about 1 m 3 s on a 2-core machine). Every
    // test file therefore restores what it changes (env stubs, globals, timers, handlers);
    // `npx vitest run --sequence.shuffle.files` checks that no file depends on another's order.
    // Tests that need a real process (signals, exit codes) spawn one themselves
    // (src/cli/bin-smoke.test.ts).
    isolate: false,
    pool: "threads",
    // Vitest's default in `run` is one worker fewer than the cores, a single worker on a 2-core
    // machine; the main process does little, so use every core and at least two. (Three
    // workers on two cores were no faster.)
    maxWorkers: Math.max(2, availableParallelism() - 1),
    unstubEnvs: true,
    // No test resolves a host name through the system resolver.
    // A scripted model's unexpected or unused calls fail the test, in every test file.
    setupFiles: ["./test/no-system-dns.ts", "./test/strict-scripts.ts"],
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
