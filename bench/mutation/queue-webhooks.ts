/**
 * The queue's sweeper and lost-job handling, and the webhook signer.
 */

import type { MutationGroup } from "./module.ts";

export const queueWebhooks: MutationGroup = {
  name: "queue-webhooks",
  modules: [
    { file: "src/queue/sweeper.ts", tests: ["src/queue/lost-jobs.test.ts"], timeoutMs: 5000 },
    {
      file: "src/queue/reconcile.ts",
      tests: ["src/queue/lost-jobs.test.ts", "src/queue/lease-takeover.test.ts"],
      timeoutMs: 5000,
    },
    { file: "src/webhooks/sign.ts", tests: ["src/webhooks/signing.test.ts"], timeoutMs: 5000 },
  ],
};
