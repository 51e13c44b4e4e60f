/**
 * Stale work and cancellation, with strategies that need no model (one holds until cancelled,
 * one answers at once) and a scripted judge: a batch that refuses stale work withdraws its
 * waiting rollouts as `stale` once a newer version is requested, while its rollout under way
 * goes on (off-policy) until cancelled; a batch that does not refuse it runs on, flagged; a
 * stale version is accepted without `rejectStale`, refused (409) with it.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { ConfigOverrides } from "../../runtime/config-load.ts";
import { createDossier } from "../../runtime/dossier.ts";
import { answerStrategy, createProject, holdStrategy } from "../../server/test-fixtures.ts";
import type { StrategyDefinition } from "../../strategies/types.ts";
import type { BatchEvent } from "./batch-events.ts";
import { policyDossiers } from "./policy-dossiers.ts";
import { createRolloutService, type RolloutService } from "./rollout-service.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const strategies = [holdStrategy, answerStrategy] as StrategyDefinition<never>[];

/** A service over a project with the corpus `notes` (the test strategies research it). */
async function setup(): Promise<RolloutService> {
  const project = await createProject({ strategies });
  cleanups.push(() => project.close());
  const { dossier } = project;
  const policies = policyDossiers({
    base: dossier,
    env: {},
    create: (overrides: ConfigOverrides) =>
      createDossier({
        env: { DOSSIER_HOME: project.home },
        cwd: project.root,
        store: dossier.store,
        config: overrides,
        strategies,
      }),
  });
  const service = await createRolloutService({
    dossier,
    policies,
    cwd: project.root,
    concurrency: 1,
    judges: () => ({
      answer: async ({ reference, response }) => ({ correct: response.includes(reference), rationale: "" }),
    }),
  });
  cleanups.push(() => service.close());
  return service;
}

const request = (strategy: string, policyVersion: number, extra: Record<string, unknown> = {}) => ({
  rows: [{ id: "q1", prompt: "What is the answer to everything?", answer: "42" }],
  strategy,
  group: 3,
  research: { corpus: "notes" },
  policy: { baseUrl: "http://127.0.0.1:9/v1", model: "policy" },
  policyVersion,
  reward: { name: "smtl" },
  ...extra,
});

/** The events of a batch, once `done` holds for them (failing, with the events seen, after 20 s). */
async function eventsUntil(service: RolloutService, id: string, done: (events: BatchEvent[]) => boolean) {
  const log = service.events(id);
  const giveUp = Date.now() + 20_000;
  while (!done(log.after(0))) {
    if (Date.now() > giveUp)
      throw new Error(
        `batch ${id} did not get there: ${log
          .after(0)
          .map((e) => e.type)
          .join(", ")}`,
      );
    await new Promise<void>((resolve) => {
      const stop = log.subscribe(() => {
        stop();
        resolve();
      });
      setTimeout(() => {
        stop();
        resolve();
      }, 500);
    });
  }
  return log.after(0);
}
const ended = (events: BatchEvent[], type: string) => events.some((e) => e.type === type);

describe("stale work", () => {
  it("withdraws a refusing batch's waiting rollouts once a newer version is requested; its running one goes on", async () => {
    const service = await setup();
    const a = await service.create(request("hold", 1, { rejectStale: true }));
    await eventsUntil(service, a.id, (events) => ended(events, "rollout-started"));
    // A batch of the same version that does not refuse stale work, waiting behind A.
    const c = await service.create(request("answer", 1, { group: 1 }));
    expect(c.offPolicy).toBe(false);

    const b = await service.create(request("answer", 2, { group: 1 }));
    expect(b.offPolicy).toBe(false);
    const aEvents = await eventsUntil(
      service,
      a.id,
      (events) => events.filter((e) => e.type === "rollout-ended").length === 2,
    );
    expect(aEvents.map((e) => (e.type === "rollout-ended" ? `${e.key} ${e.status}` : e.type))).toEqual([
      "rollout-started",
      "q1#1 stale",
      "q1#2 stale",
    ]);
    expect(service.view(a.id)).toMatchObject({
      status: "running",
      offPolicy: true,
      counts: { running: 1, stale: 2 },
    });
    expect(service.view(c.id)).toMatchObject({ offPolicy: true, counts: { pending: 1 } });

    service.cancel(a.id);
    const aEnd = await eventsUntil(service, a.id, (events) => ended(events, "batch-end"));
    expect(aEnd.slice(3).map((e) => e.type)).toEqual(["rollout-ended", "group-scored", "batch-end"]);
    expect(aEnd.at(-1)).toMatchObject({
      type: "batch-end",
      status: "cancelled",
      counts: { cancelled: 1, stale: 2 },
    });
    expect(aEnd.find((e) => e.type === "group-scored")).toMatchObject({ rollouts: [] });

    // C, not refusing stale work, runs once the slot is free, flagged off-policy; B is on-policy.
    for (const id of [c.id, b.id]) await eventsUntil(service, id, (events) => ended(events, "batch-end"));
    const cResults = await service.results(c.id);
    expect(cResults.rollouts[0]).toMatchObject({
      status: "completed",
      offPolicy: true,
      reward: 1,
      answer: "42",
    });
    const bResults = await service.results(b.id);
    expect(bResults.rollouts[0]).toMatchObject({ status: "completed", offPolicy: false, reward: 1 });

    // A stale version: accepted (flagged) without rejectStale, refused with it.
    expect((await service.create(request("answer", 1, { group: 1 }))).offPolicy).toBe(true);
    await expect(service.create(request("answer", 1, { rejectStale: true }))).rejects.toMatchObject({
      code: "CONFLICT",
    });
  }, 60_000);
});
