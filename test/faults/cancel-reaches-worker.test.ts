/**
 * A cancel reaches a `dossier worker` before its next model call: a minddr run on a worker
 * process has its three sub-report requests in flight, held unanswered at the model server; the
 * run is cancelled through the store (as the API, `dossier batch` on Ctrl-C or another process
 * does), and only then are the held requests answered — so the run goes on at once to its next
 * model call (the outline, which needs no tool before it), well before the run's next heartbeat.
 * It never reaches the model server: no chat request arrives after the cancel was recorded, and
 * the run ends cancelled with the reason given. Real PostgreSQL, a redis-server of the test's own; skipped with a notice when a
 * service does not answer (failed with DOSSIER_REQUIRE_SERVICES=1).
 */

import { afterEach, describe, expect, it } from "vitest";
import { queuedResearch } from "../../src/queue/queued-research.ts";
import { redisServerProblem } from "../queue/own-redis.ts";
import type { ChatBody } from "../research/model-script.ts";
import { systemText } from "../research/replies.ts";
import { postgresProblem, redisProblem, servicesAnswer } from "../services.ts";
import { until } from "./dossier-process.ts";
import { startFaultWorld } from "./fault-world.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

if (servicesAnswer([await postgresProblem(), await redisProblem(), await redisServerProblem()])) {
  describe("cancelling a run on a worker process", () => {
    it("starts no model call after the cancel is recorded, though answers in flight arrive after it", async () => {
      // Sub-report requests are held until the test lets them go; the others are answered.
      let releaseAll: () => void = () => {};
      const released = new Promise<void>((resolve) => {
        releaseAll = resolve;
      });
      let held = 0;
      const fault = await startFaultWorld(
        {
          subtasks: 3,
          hold: async (request) => {
            if (!systemText(request.body as ChatBody).includes("findings of one research subtask")) return;
            held++;
            await released;
          },
        },
        cleanups,
      );
      const worker = fault.startWorker(["--concurrency", "1"]);
      await until(async () => (await fault.queue.status()).workers.length >= 1, 60_000, "the worker");

      const research = queuedResearch(fault.dossier, fault.queue, { pollMs: 100, followMs: 250 });
      const handle = research.research("How is topic 3 adoption changing?", {
        strategy: "minddr",
        formats: ["md"],
      });
      // Wait until the run waits on the model alone: its three sub-reports held, nothing else coming.
      let last = -1;
      let steadySince = Date.now();
      await until(
        () => {
          if (held !== last) {
            last = held;
            steadySince = Date.now();
          }
          return held >= 3 && Date.now() - steadySince > 600;
        },
        60_000,
        "model requests held at the server",
      );
      const heldAtCancel = held;
      expect(await research.runs.cancel(handle.runId, "stopped by the test")).toBe(true);
      const cancelledAt = Date.now();
      releaseAll();

      const result = await handle.done;
      const chat = fault.world.model.requests.filter((r) => r.path.endsWith("/chat/completions"));
      const after = chat.filter((r) => r.receivedAt > cancelledAt);
      expect(heldAtCancel).toBe(3);
      expect(
        after.map((r) => r.receivedAt - cancelledAt),
        "chat requests that arrived after the cancel (ms after it)",
      ).toEqual([]);
      const record = await fault.dossier.store.runs.get(handle.runId);
      expect(record).toMatchObject({ status: "cancelled", stopReason: "cancelled: stopped by the test" });
      expect(result.status).toBe("cancelled");
      // The held answers were let through: the run's agents did try to go on.
      const events = await fault.dossier.store.events.list(handle.runId);
      const refused = events.filter(
        (e) =>
          e.type === "llm-end" && !e.ok && (e as { error?: { code?: string } }).error?.code === "CANCELLED",
      );
      if (process.env.DOSSIER_FAULT_FIGURES === "1")
        process.stderr.write(
          `[faults] cancel: ${heldAtCancel} request(s) in flight at the cancel, ${refused.length} call(s) stopped at the gate or aborted, ${after.length} sent after it\n`,
        );
      await worker.stop("SIGTERM");
    }, 120_000);
  });
}
