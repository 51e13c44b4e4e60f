/**
 * The CLI: `dossier research --webhook` makes the first attempt before it exits; what is not
 * delivered stays pending in the store (said on stderr) and `dossier runs show` lists each
 * delivery with its attempts; a bad secret is refused before the run, never shown.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../test/cli-io.ts";
import { type Receiver, startReceiver, TEST_SECRET } from "./test-receiver.ts";

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function workspace() {
  const root = mkdtempSync(join(tmpdir(), "dossier-webhook-cli-"));
  cleanup.push(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, "notes"));
  writeFileSync(
    join(root, "notes", "grid.md"),
    "# Grid\n\nWinter peak demand rose where heat pumps replaced gas boilers, according to the utility report.\n",
  );
  const env = {
    DOSSIER_HOME: join(root, ".dossier"),
    DOSSIER_WEBHOOK_SECRET: TEST_SECRET,
    DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
  };
  return { root, env };
}

async function receiver(statuses: number[] = []): Promise<Receiver> {
  const r = await startReceiver(TEST_SECRET, statuses);
  cleanup.push(() => r.close());
  return r;
}

const QUESTION = "How did heat pumps change winter peak demand?";

describe("dossier research --webhook", { timeout: 60_000 }, () => {
  it("delivers before the command exits, and runs show lists the delivery", async () => {
    const { root, env } = workspace();
    const hooks = await receiver();
    const run = await runCliInProcess(
      ["research", QUESTION, "--docs", "notes", "--webhook", hooks.url, "--json"],
      { cwd: root, env },
    );
    expect(run.code).toBe(0);
    const { runId } = JSON.parse(run.stdout) as { runId: string };
    expect(hooks.received).toHaveLength(1);
    expect(hooks.received[0]!.verifyError).toBeNull();
    expect(JSON.parse(hooks.received[0]!.body)).toMatchObject({ type: "run.completed", data: { runId } });
    expect(run.stderr).not.toMatch(/not delivered/);

    const show = await runCliInProcess(["runs", "show", runId, "--json"], { cwd: root, env });
    expect(JSON.parse(show.stdout).webhooks).toMatchObject([
      {
        id: hooks.received[0]!.headers["webhook-id"],
        type: "run.completed",
        url: hooks.url,
        state: "delivered",
        attempts: [{ status: 204, error: null }],
      },
    ]);
    const text = await runCliInProcess(["runs", "show", runId], { cwd: root, env });
    expect(text.stdout).toMatch(
      /webhook {3}run\.completed → http:\/\/127\.0\.0\.1:\d+\/hooks\/dossier: delivered /,
    );
    expect(text.stdout).toMatch(/ {2}attempt 1 \S+: HTTP 204 \(\d+ ms\)/);
  });

  it("leaves a delivery the receiver refused pending in the store, and says so", async () => {
    const { root, env } = workspace();
    const hooks = await receiver([503]);
    const run = await runCliInProcess(["research", QUESTION, "--docs", "notes", "--webhook", hooks.url], {
      cwd: root,
      env,
    });
    expect(run.code).toBe(0);
    expect(hooks.received.map((r) => r.status)).toEqual([503]);
    expect(run.stderr).toMatch(
      /1 webhook delivery not delivered yet; kept in the store for dossier serve or dossier worker/,
    );
    const runId = /dossier runs show (\S+)\)/.exec(run.stderr)![1]!;
    const show = await runCliInProcess(["runs", "show", runId, "--json"], { cwd: root, env });
    const [delivery] = JSON.parse(show.stdout).webhooks;
    expect(delivery).toMatchObject({
      state: "pending",
      attempts: [{ status: 503, error: "HTTP 503: not now" }],
    });
    expect(Date.parse(delivery.nextAttemptAt)).toBeGreaterThan(Date.parse(delivery.attempts[0].at));
  });

  it("refuses a malformed secret before anything runs, without showing it", async () => {
    const { root, env } = workspace();
    const hooks = await receiver();
    const run = await runCliInProcess(["research", QUESTION, "--docs", "notes", "--webhook", hooks.url], {
      cwd: root,
      env: { ...env, DOSSIER_WEBHOOK_SECRET: "whsec_c2hvcnQtc2VjcmV0" },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /invalid setting DOSSIER_WEBHOOK_SECRET: "whs…cmV0" — expected whsec_ followed by the base64 of 24 to 64 random bytes/,
    );
    expect(run.stderr).not.toContain("c2hvcnQtc2VjcmV0");
    expect(hooks.received).toEqual([]);
  });
});
