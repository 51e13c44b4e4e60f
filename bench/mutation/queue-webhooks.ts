/**
 * The queue's sweeper and lost-job handling (with the liveness judgement it hands runs on by),
 * and the webhook signer and its secret. Each against its focused unit tests on a SQLite store
 * and an in-memory run queue; the end-to-end files on real Redis and PostgreSQL
 * (lost-jobs.test.ts, lease-takeover.test.ts) pin the same promises across processes, too
 * slowly to run per mutant.
 */

import type { MutationGroup } from "./module.ts";

export const queueWebhooks: MutationGroup = {
  name: "queue-webhooks",
  modules: [
    {
      file: "src/queue/sweeper.ts",
      tests: ["src/queue/sweep-passes.test.ts", "src/queue/sweeper-schedule.test.ts"],
      timeoutMs: 2000,
    },
    {
      file: "src/queue/reconcile.ts",
      tests: ["src/queue/reconcile-states.test.ts", "src/queue/sweep-passes.test.ts"],
      timeoutMs: 2000,
    },
    {
      file: "src/runtime/run-liveness.ts",
      tests: ["src/runtime/owner-gone.test.ts", "src/runtime/run-liveness.test.ts"],
      timeoutMs: 2000,
    },
    {
      file: "src/webhooks/sign.ts",
      tests: ["src/webhooks/signing.test.ts", "src/webhooks/signature-tamper.test.ts"],
      timeoutMs: 1000,
    },
    {
      file: "src/webhooks/secret.ts",
      tests: ["src/webhooks/signing.test.ts", "src/webhooks/secret-form.test.ts"],
      timeoutMs: 1000,
    },
  ],
};
