/**
 * A research run's life over MCP (streamable HTTP, loopback research world, real timers): a
 * heartbeat while one model call is in flight, a run that goes on when its client's session
 * goes away and is read from another session, and `tasks/cancel` cancelling a task's run.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { worldCliEnv } from "../../test/research/world-cli.ts";
import { createDossier, type Dossier } from "../runtime/dossier.ts";
import { type RunningServer, startServer } from "../server/listen.ts";

let world: ResearchWorld | undefined;
let dossier: Dossier | undefined;
let server: RunningServer | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await server?.close();
  await dossier?.close();
  await world?.close();
  server = dossier = world = undefined;
});

/** A gate the model's next call waits at until it is opened. */
function gate() {
  let armed = false;
  let open!: () => void;
  let reached!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const waiting = new Promise<void>((resolve) => {
    reached = resolve;
  });
  return {
    arm: () => {
      armed = true;
    },
    open: () => open(),
    /** Settles once a call waits at the gate. */
    waiting,
    hold: async () => {
      if (!armed) return;
      armed = false;
      reached();
      await opened;
    },
  };
}

async function start(heartbeatMs?: number) {
  const g = gate();
  world = await startResearchWorld({ subtasks: 2, hold: () => g.hold() });
  dossier = createDossier({
    cwd: world.home,
    env: worldCliEnv(world),
  });
  server = await startServer({
    dossier,
    port: 0,
    token: null,
    ...(heartbeatMs !== undefined ? { mcpHeartbeatMs: heartbeatMs } : {}),
  });
  return g;
}

async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server!.url}/mcp`));
  const client = new Client({ name: "lifecycle", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

async function waitFor<T>(check: () => Promise<T | false | undefined> | T | false | undefined, ms = 15_000) {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const question = "How is topic adoption changing?";
const runIdOf = (message: string | undefined) => /; run (\S+)\)$/.exec(message ?? "")?.[1];

// A first run in a worker loads the page reader (seconds on a loaded machine).
describe("MCP research lifecycle", { timeout: 60_000 }, () => {
  it("sends a heartbeat naming the model call in flight while nothing else happens", async () => {
    const g = await start(50);
    g.arm();
    const { client } = await connect();
    const progress: { progress: number; message?: string }[] = [];
    const heartbeats = () => progress.filter((p) => p.message?.startsWith("working: waiting for")).length;
    const result = await client.callTool(
      { name: "deep_research", arguments: { question, strategy: "minddr" } },
      undefined,
      {
        onprogress: (p) => {
          progress.push(p);
          // The held call is let go only once heartbeats came while it was in flight.
          if (heartbeats() >= 3) g.open();
        },
      },
    );
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect((result.structuredContent as { markdown: string }).markdown).toMatch(/\[\d+\]/);
    expect(progress[0]!.message).toMatch(/^started \(minddr; run /);
    // Three heartbeats in a row, nothing else between them: the one held call was in flight.
    const first = progress.findIndex((p) => p.message?.startsWith("working: waiting for"));
    for (const p of progress.slice(first, first + 3))
      expect(p.message).toMatch(/^working: waiting for the [a-z-]+ model \(\d+ s\)$/);
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...new Set(values)].sort((a, b) => a - b));
  });

  it("keeps a run going when its client's session goes away, and serves it to another session", async () => {
    const g = await start();
    g.arm();
    const a = await connect();
    const messages: string[] = [];
    const call = a.client
      .callTool({ name: "deep_research", arguments: { question, strategy: "minddr" } }, undefined, {
        onprogress: (p) => messages.push(p.message ?? ""),
      })
      .catch((error: unknown) => error);
    const runId = await waitFor(() => runIdOf(messages[0]));
    await g.waiting;
    // The client ends its session (DELETE /mcp) and leaves; its pending call is abandoned.
    await a.transport.terminateSession();
    await a.client.close();
    await call;
    g.open();

    const b = await connect();
    const done = await waitFor(async () => {
      const status = (await b.client.callTool({ name: "research_status", arguments: { runId } }))
        .structuredContent as { status: string; done: boolean };
      return status.done && status;
    });
    expect(done.status).toBe("completed");
    const result = await b.client.callTool({ name: "research_result", arguments: { runId } });
    expect(result.structuredContent).toMatchObject({ runId, status: "completed" });
    expect((result.structuredContent as { references: unknown[] }).references.length).toBeGreaterThan(0);
    expect((await dossier!.runs.get(runId)).status).toBe("completed");
  });

  it("cancels a task's run on tasks/cancel, and a started run on research_cancel", async () => {
    const g = await start();
    g.arm();
    const { client } = await connect();
    await client.listTools();
    const stream = client.experimental.tasks.callToolStream({
      name: "deep_research",
      arguments: { question, strategy: "minddr" },
    });
    const created = (await stream.next()).value;
    if (created?.type !== "taskCreated")
      throw new Error(`expected taskCreated, got ${JSON.stringify(created)}`);
    await g.waiting;
    const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled.status).toBe("cancelled");
    await stream.return(undefined);
    const [run] = await dossier!.runs.list();
    await waitFor(async () => (await dossier!.runs.get(run!.id)).status === "cancelled");
    expect((await dossier!.runs.get(run!.id)).stopReason).toContain("tasks/cancel");

    g.arm();
    const started = await client.callTool({
      name: "research_start",
      arguments: { question, strategy: "minddr" },
    });
    const { runId } = started.structuredContent as { runId: string };
    await g.waiting.then(() => undefined);
    const answer = await client.callTool({ name: "research_cancel", arguments: { runId } });
    expect(answer.structuredContent).toMatchObject({ runId, status: "cancelling" });
    await waitFor(async () => (await dossier!.runs.get(runId)).status === "cancelled");
    g.open();
  });

  it("refreshes a finished run's report as a run of its own, followed with the same tools", async () => {
    await start();
    const { client } = await connect();
    const status = async (runId: string) =>
      (await client.callTool({ name: "research_status", arguments: { runId } })).structuredContent as {
        status: string;
        done: boolean;
      };
    const started = await client.callTool({
      name: "research_start",
      arguments: { question, strategy: "minddr" },
    });
    const { runId } = started.structuredContent as { runId: string };
    await waitFor(async () => (await status(runId)).done);

    const refresh = await client.callTool({
      name: "refresh_start",
      arguments: { runId: runId.slice(0, 18) },
    });
    expect(refresh.isError, JSON.stringify(refresh.content)).toBeFalsy();
    const refreshId = (refresh.structuredContent as { runId: string }).runId;
    expect(refreshId).not.toBe(runId);
    expect((refresh.content as { text: string }[])[0]!.text).toMatch(
      new RegExp(`^refresh of ${runId}, version 2: run ${refreshId} `),
    );
    expect(
      (
        await waitFor(async () => {
          const s = await status(refreshId);
          return s.done && s;
        })
      ).status,
    ).toBe("completed");
    const result = await client.callTool({ name: "research_result", arguments: { runId: refreshId } });
    expect(result.structuredContent).toMatchObject({ runId: refreshId, status: "completed" });
    expect((await dossier!.runs.get(refreshId)).strategy).toBe("refresh");

    // Version 1 is no longer the latest; an unknown run is not found: both refused, nothing started.
    const runs = (await dossier!.runs.list()).length;
    const older = await client.callTool({ name: "refresh_start", arguments: { runId } });
    expect(older.isError).toBe(true);
    expect(JSON.stringify(older.content)).toContain(`the latest is version 2 (run ${refreshId})`);
    const unknown = await client.callTool({ name: "refresh_start", arguments: { runId: "no-such-run" } });
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toContain("NOT_FOUND");
    expect((await dossier!.runs.list()).length).toBe(runs);
  });
});
