/**
 * The MCP `ask` and `fetch` tools report progress like `deep_research` (streamable HTTP, loopback
 * research world, real timers): `ask` its run's steps, and both a heartbeat while nothing else
 * happens (for `ask`, naming the model call in flight). A client that resets its request timeout
 * on progress (the SDK's `resetTimeoutOnProgress`) therefore completes an ask whose one model call
 * takes several times its timeout — the injected latency stands for a slow local model.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelScriptOptions } from "../../test/research/model-script.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { worldCliEnv } from "../../test/research/world-cli.ts";
import { createDossier, type Dossier } from "../runtime/dossier.ts";
import { type RunningServer, startServer } from "../server/listen.ts";

let world: ResearchWorld | undefined;
let dossier: Dossier | undefined;
let server: RunningServer | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close().catch(() => {});
  await server?.close();
  await dossier?.close();
  await world?.close();
  client = server = dossier = world = undefined;
});

const question = "Which topic saw measured growth in the 2025 survey?";
/** The calls one smtl ask makes in the world. */
const ASK_CALLS = { "smtl-plan": 1, "smtl-step": 2, reader: 1 };

/** A world whose first model call waits for `hold`, a Dossier on it, and a server with MCP. */
async function start(
  hold: () => Promise<void>,
  heartbeatMs: number,
  expectCalls: ModelScriptOptions["expectCalls"] = ASK_CALLS,
): Promise<Client> {
  let first = true;
  world = await startResearchWorld({
    expectCalls,
    hold: async () => {
      if (!first) return;
      first = false;
      await hold();
    },
  });
  dossier = createDossier({
    cwd: world.home,
    env: worldCliEnv(world),
  });
  server = await startServer({ dossier, port: 0, token: null, mcpHeartbeatMs: heartbeatMs });
  client = new Client({ name: "ask-progress", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  // Listing first: the client then checks structured content against the output schema.
  await client.listTools();
  return client;
}

const HEARTBEAT = /^working: waiting for the [a-z-]+ model \(\d+ s\)$/;

describe("MCP ask and fetch progress", { timeout: 60_000 }, () => {
  it("sends its run's steps and a heartbeat naming the model call in flight", async () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    // Let go after 10 s at the latest: without heartbeats the test fails on them, not on time.
    const late = setTimeout(() => open(), 10_000);
    const c = await start(() => opened, 50);
    const progress: { progress: number; message?: string }[] = [];
    const heartbeats = () => progress.filter((p) => HEARTBEAT.test(p.message ?? "")).length;
    const result = await c.callTool({ name: "ask", arguments: { question } }, undefined, {
      onprogress: (p) => {
        progress.push(p);
        // The held call is let go only once heartbeats came while it was in flight.
        if (heartbeats() >= 3) open();
      },
    });
    clearTimeout(late);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const answer = result.structuredContent as { answer: string; status: string; citations: unknown[] };
    expect(answer.status).toBe("completed");
    expect(answer.answer.length).toBeGreaterThan(0);
    expect(answer.citations.length).toBeGreaterThan(0);
    expect(progress[0]!.message).toMatch(/^started \(smtl; run /);
    // Three heartbeats in a row, nothing else between them: the one held call was in flight.
    const first = progress.findIndex((p) => HEARTBEAT.test(p.message ?? ""));
    expect(first).toBeGreaterThan(0);
    for (const p of progress.slice(first, first + 3)) expect(p.message).toMatch(HEARTBEAT);
    expect(progress.at(-1)!.message).toMatch(/^run completed /);
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...new Set(values)].sort((a, b) => a - b));
  });

  it("keeps a client that resets its timeout on progress waiting through a model call longer than the timeout", async () => {
    // A heartbeat every 100 ms against a 1.5 s timeout: a busy machine (a whole suite on two
    // cores) may hold the event loop for some hundred ms without the client timing out; the call
    // takes twice the timeout, so without heartbeats it still does.
    const TIMEOUT_MS = 1500;
    const LATENCY_MS = 2 * TIMEOUT_MS;
    const c = await start(() => new Promise((resolve) => setTimeout(resolve, LATENCY_MS)), 100);
    const started = Date.now();
    const result = await c.callTool({ name: "ask", arguments: { question } }, undefined, {
      timeout: TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress: () => {},
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(LATENCY_MS);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect((result.structuredContent as { status: string }).status).toBe("completed");
  });

  it("fetch with a goal sends a heartbeat while the reader model reads the page", async () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    const late = setTimeout(() => open(), 10_000);
    const c = await start(() => opened, 50, { reader: 1 });
    const progress: { progress: number; message?: string }[] = [];
    const result = await c.callTool(
      { name: "fetch", arguments: { url: world!.web.url("/page/3"), goal: "the topic's growth figure" } },
      undefined,
      {
        onprogress: (p) => {
          progress.push(p);
          if (progress.length >= 3) open();
        },
      },
    );
    clearTimeout(late);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect((result.structuredContent as { kind: string }).kind).toBe("reading");
    expect(progress.length).toBeGreaterThanOrEqual(3);
    for (const p of progress) expect(p.message).toMatch(/^working \(\d+ s\)$/);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
  });
});
