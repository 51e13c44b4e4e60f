/**
 * Rollouts whose policy endpoint is down: a rollout that failed outside the agent (the model
 * cannot be reached) is not a sample; it is retried a bounded number of rounds, each resuming it
 * from its journal, and then reported — recorded only once it really ran.
 */

import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { createDossier } from "../../runtime/dossier.ts";
import { runRollouts } from "./run-rollouts.ts";

let world: ResearchWorld | undefined;
let proxy: Server | undefined;
afterEach(async () => {
  await new Promise((r) => (proxy ? proxy.close(r) : r(null)));
  proxy = undefined;
  await world?.close();
  world = undefined;
});

const ROW = { id: "q1", prompt: "Which topic saw measured growth in the 2025 survey?", answer: "Topic 2" };

/** A port nothing listens on (taken, then released). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** The model server again at `port`: a plain forwarder to the world's fake model. */
async function restoreEndpoint(port: number, target: string): Promise<Server> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const forwarded = request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forwarded);
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return server;
}

async function rollouts(port: number, onRetry: (round: number, keys: string[]) => Promise<void> | void) {
  const dossier = createDossier({
    config: { ...world!.config, baseUrl: `http://127.0.0.1:${port}/v1` },
    cwd: world!.home,
    env: {},
  });
  const retries: { round: number; keys: string[]; delayMs: number }[] = [];
  let pending: Promise<void> = Promise.resolve();
  const result = await runRollouts({
    rows: [ROW],
    dir: join(world!.home, "ro"),
    strategy: "smtl",
    group: 2,
    research: { currentDate: "2026-03-01" },
    dossier,
    infraRetries: 2,
    retryDelayMs: 20,
    onRetry: (r) => {
      retries.push(r);
      pending = Promise.resolve(onRetry(r.round, r.keys));
    },
  });
  await pending;
  return { result, retries };
}

describe("rollouts with the policy endpoint down", () => {
  it("retries the rollouts the endpoint failed, a bounded number of rounds, then reports them", async () => {
    world = await startResearchWorld({});
    const port = await freePort();
    const { result, retries } = await rollouts(port, () => {});
    expect(retries.map((r) => [r.round, r.keys, r.delayMs])).toEqual([
      [1, ["q1#0", "q1#1"], 20],
      [2, ["q1#0", "q1#1"], 40],
    ]);
    expect(result.retryRounds).toBe(2);
    expect(result.items.map((i) => [i.id, i.status])).toEqual([
      ["q1#0", "failed"],
      ["q1#1", "failed"],
    ]);
    for (const item of result.items)
      expect(item.error).toMatch(/cannot be used \(ECONNREFUSED: cannot connect\)/);
    expect(result.failedSamples).toEqual([]);
    expect(world.model.requests).toEqual([]);
  }, 60_000);

  it("takes the rollouts up from their journals when the endpoint is back, and records them", async () => {
    world = await startResearchWorld({});
    const port = await freePort();
    const { result, retries } = await rollouts(port, async (round) => {
      if (round === 1) proxy = await restoreEndpoint(port, world!.model.url);
    });
    expect(retries.map((r) => r.round)).toEqual([1]);
    expect(result.items.map((i) => [i.id, i.status, i.resumed])).toEqual([
      ["q1#0", "completed", true],
      ["q1#1", "completed", true],
    ]);
    expect(result.progress).toMatchObject({ done: 2, failed: 0 });
    expect(result.unrecorded).toEqual([]);
  }, 60_000);
});
