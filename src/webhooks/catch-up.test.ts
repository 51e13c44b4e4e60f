/**
 * Catching up on missed announcements: a run whose status was written by a process killed before
 * its outbox rows were (written here through the bare store, which announces nothing) is put in
 * the outbox once by the catch-up, whoever runs it and however often; what was announced, what has
 * no webhooks, what is still running and what ended before the window are left alone; and a
 * started deliverer sends the caught-up event to the receiver, signed.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunStatus } from "../core/run.ts";
import { openStore } from "../store/open-store.ts";
import type { Store } from "../store/types.ts";
import { announceMissed } from "./catch-up.ts";
import { DEFAULT_WEBHOOK_CONFIG } from "./config-schema.ts";
import { webhookEventSchema } from "./event.ts";
import { announce } from "./outbox.ts";
import { startReceiver, TEST_SECRET } from "./test-receiver.ts";
import { createWebhooks } from "./webhooks.ts";

const HOOK = "https://hooks.example.com/dossier";
const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 60 * 60_000;

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function freshStore(): Promise<Store> {
  const home = mkdtempSync(join(tmpdir(), "dossier-catch-up-"));
  const store = openStore({ home });
  await store.ready();
  cleanup.push(() => rmSync(home, { recursive: true, force: true }));
  cleanup.push(() => store.close());
  return store;
}

/** A run that reached `status` at `at`, written through the store as given (announcing nothing). */
async function endedRun(
  store: Store,
  id: string,
  status: RunStatus,
  at: number,
  webhooks: string[] = [HOOK],
): Promise<void> {
  await store.runs.create({
    id,
    query: `question of ${id}`,
    strategy: "offline",
    options: webhooks.length ? { webhooks } : {},
    createdAt: iso(at - 60_000),
  });
  if (status === "running") return;
  const ended = status !== "awaiting-review";
  await store.runs.update(id, {
    status,
    updatedAt: iso(at),
    ...(ended ? { finishedAt: iso(at), stopReason: status } : {}),
  });
}

const options = (now: number, windowMs = 24 * HOUR) => ({ now, maxAttempts: 7, windowMs });

describe("announceMissed", () => {
  it("announces each ended run's missed status once, however often it is asked", async () => {
    const store = await freshStore();
    await endedRun(store, "run-done", "completed", T0);
    await endedRun(store, "run-failed", "failed", T0 + 1000);
    await endedRun(store, "run-cancelled", "cancelled", T0 + 2000);

    const added = await announceMissed(store, options(T0 + HOUR));
    expect(added.map((d) => [d.runId, d.eventType, d.url]).sort()).toEqual([
      ["run-cancelled", "run.cancelled", HOOK],
      ["run-done", "run.completed", HOOK],
      ["run-failed", "run.failed", HOOK],
    ]);
    for (const d of added) {
      const event = webhookEventSchema.parse(JSON.parse(d.body));
      expect(event.data.runId).toBe(d.runId);
      expect(d.state).toBe("pending");
      expect(d.maxAttempts).toBe(7);
    }
    // Asked again, by this process or another: nothing more.
    expect(await announceMissed(store, options(T0 + HOUR + 60_000))).toEqual([]);
    expect((await store.deliveries.list("run-done")).length).toBe(1);
  });

  it("adds nothing for a status the status write announced", async () => {
    const store = await freshStore();
    await endedRun(store, "run-done", "completed", T0);
    const record = await store.runs.get("run-done");
    const announced = await announce(store, record!, { now: iso(T0), maxAttempts: 7 });
    expect(announced.length).toBe(1);
    expect(await announceMissed(store, options(T0 + 1000))).toEqual([]);
    expect((await store.deliveries.list("run-done")).map((d) => d.id)).toEqual([announced[0]!.id]);
  });

  it("leaves alone runs without webhooks, runs still running and runs that ended before the window", async () => {
    const store = await freshStore();
    await endedRun(store, "run-bare", "completed", T0, []);
    await endedRun(store, "run-going", "running", T0);
    await endedRun(store, "run-old", "completed", T0 - 3 * HOUR);
    await endedRun(store, "run-recent", "completed", T0 - HOUR);
    const added = await announceMissed(store, options(T0, 2 * HOUR));
    expect(added.map((d) => d.runId)).toEqual(["run-recent"]);
    // A longer window reaches the older run.
    expect((await announceMissed(store, options(T0, 4 * HOUR))).map((d) => d.runId)).toEqual(["run-old"]);
  });

  it("announces a run awaiting review once, even after a later write moves its update time", async () => {
    const store = await freshStore();
    await endedRun(store, "run-review", "awaiting-review", T0);
    const added = await announceMissed(store, options(T0 + 1000));
    expect(added.map((d) => [d.runId, d.eventType])).toEqual([["run-review", "run.awaiting_review"]]);
    await store.runs.update("run-review", { updatedAt: iso(T0 + 5000) });
    expect(await announceMissed(store, options(T0 + 10_000))).toEqual([]);
    expect((await store.deliveries.list("run-review")).length).toBe(1);
  });
});

describe("a started deliverer", () => {
  it("sends a status no outbox row announced, signed, once", async () => {
    const store = await freshStore();
    const receiver = await startReceiver(TEST_SECRET);
    cleanup.push(() => receiver.close());
    await endedRun(store, "run-missed", "completed", Date.now() - 1000, [receiver.url]);
    const webhooks = createWebhooks({
      store,
      config: { ...DEFAULT_WEBHOOK_CONFIG, secret: TEST_SECRET },
      guard: { allowPrivateNetwork: true },
      pollMs: 50,
    });
    cleanup.push(() => webhooks.deliverer.close());
    webhooks.deliverer.start();
    await receiver.count(1);
    await webhooks.deliverer.settle(5000);
    expect(receiver.received.length).toBe(1);
    const got = receiver.received[0]!;
    expect(got.verifyError).toBeNull();
    const event = webhookEventSchema.parse(JSON.parse(got.body));
    expect([event.type, event.data.runId]).toEqual(["run.completed", "run-missed"]);
    const [delivery] = await store.deliveries.list("run-missed");
    expect(delivery?.state).toBe("delivered");
  });
});
