/**
 * The API: `webhooks` on POST /v1/runs is called when the run ends (verified independently), and
 * GET /v1/runs/{id}/webhooks lists the deliveries and their attempts; a loopback receiver is
 * refused with the guard's reason when the server does not allow private networks.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDossier } from "../runtime/dossier.ts";
import { startServer } from "../server/listen.ts";
import { deliveryViewSchema } from "./delivery-view.ts";
import { startReceiver, TEST_SECRET } from "./test-receiver.ts";

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A server over a data directory whose corpus `notes` is indexed. */
async function server(allowPrivateNetwork: boolean) {
  const root = mkdtempSync(join(tmpdir(), "dossier-webhook-api-"));
  cleanup.push(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, "notes"));
  writeFileSync(
    join(root, "notes", "grid.md"),
    "# Grid\n\nWinter peak demand rose where heat pumps replaced gas boilers.\n",
  );
  const dossier = createDossier({
    env: { DOSSIER_HOME: join(root, ".dossier") },
    cwd: root,
    config: { allowPrivateNetwork, webhooks: { secret: TEST_SECRET } },
  });
  cleanup.push(() => dossier.close());
  // Indexes the folder as the corpus "notes".
  await dossier.research("What happened to winter peak demand?", { docs: join(root, "notes") }).done;
  const running = await startServer({ dossier, port: 0, token: null });
  cleanup.push(() => running.close());
  const call = (path: string, body?: unknown) =>
    fetch(`${running.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { call };
}

describe("webhooks over the API", { timeout: 60_000 }, () => {
  it("calls a run's webhooks and lists its deliveries", async () => {
    const { call } = await server(true);
    const hooks = await startReceiver(TEST_SECRET);
    cleanup.push(() => hooks.close());
    const created = await call("/v1/runs", {
      question: "What happened to winter peak demand?",
      strategy: "offline",
      corpus: "notes",
      sources: "local",
      webhooks: [hooks.url],
    });
    expect(created.status).toBe(201);
    const { run } = (await created.json()) as { run: { id: string } };
    await hooks.count(1);
    expect(hooks.received[0]!.verifyError).toBeNull();
    expect(JSON.parse(hooks.received[0]!.body)).toMatchObject({
      type: "run.completed",
      data: { runId: run.id },
    });
    let listed: { runId: string; webhooks: unknown[] } = { runId: "", webhooks: [] };
    for (let i = 0; i < 100; i++) {
      const response = await call(`/v1/runs/${run.id}/webhooks`);
      expect(response.status).toBe(200);
      listed = (await response.json()) as typeof listed;
      if ((listed.webhooks[0] as { state?: string } | undefined)?.state === "delivered") break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(listed.runId).toBe(run.id);
    const [delivery] = listed.webhooks.map((w) => deliveryViewSchema.parse(w));
    expect(delivery).toMatchObject({
      id: hooks.received[0]!.headers["webhook-id"],
      type: "run.completed",
      url: hooks.url,
      state: "delivered",
      attempts: [{ status: 204, error: null }],
    });
    expect((await call("/v1/runs/no-such-run/webhooks")).status).toBe(404);
  });

  it("refuses a loopback webhook unless the server allows private networks", async () => {
    const { call } = await server(false);
    const response = await call("/v1/runs", {
      question: "What happened to winter peak demand?",
      strategy: "offline",
      corpus: "notes",
      sources: "local",
      webhooks: ["http://127.0.0.1:9/hook"],
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("NETWORK_REFUSED");
    expect(body.error.message).toMatch(/webhook http:\/\/127\.0\.0\.1:9\/hook: refused/);
  });
});
