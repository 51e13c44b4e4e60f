/**
 * A research run longer than an MCP client's request timeout, through `dossier serve` at /mcp,
 * with a client built on the official SDK and its DEFAULT request options (a 60 s timeout, not
 * reset by progress).
 *
 * The run's first model call is held back 65 s on the client's clock: the test process fakes
 * its timers (the client's request timeouts, and the research world's hold, which the fake model
 * server awaits), and the server runs in its own process on real time. So the run outlasts the
 * client's timeout as the client measures it, while the test takes seconds. Held open,
 * `deep_research` fails at 60 s, as the SDK's clients do against a long run; started with
 * `research_start` (then `research_status`, `research_result`) or run as an MCP task, the same
 * run completes and the report is read from `structuredContent`.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { Agent, fetch as undiciFetch } from "undici";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";

const main = fileURLToPath(new URL("../cli/main.ts", import.meta.url));
/** Real timers, taken before any test fakes them. */
const realSetTimeout = globalThis.setTimeout;
const realSleep = (ms: number) => new Promise<void>((resolve) => realSetTimeout(resolve, ms));
const realNow = Date.now;

/** The model latency injected into the first call of a run (ms, on the client's clock). */
const MODEL_LATENCY_MS = 65_000;
/** The SDK client's default request timeout (DEFAULT_REQUEST_TIMEOUT_MSEC). */
const CLIENT_TIMEOUT_MS = 60_000;

let world: ResearchWorld | undefined;
let child: ChildProcess | undefined;
let client: Client | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await client?.close().catch(() => {});
  child?.kill("SIGTERM");
  if (child && child.exitCode === null) await new Promise((resolve) => child!.once("exit", resolve));
  await world?.close();
  client = child = world = undefined;
});

/** Spawns `dossier serve --no-auth` on the world and resolves with its URL. */
async function serve(w: ResearchWorld): Promise<string> {
  const proc = spawn(process.execPath, [main, "serve", "--port", "0", "--no-auth", "--access-log", "off"], {
    cwd: w.home,
    env: {
      PATH: process.env.PATH,
      HOME: w.home,
      DOSSIER_HOME: w.home,
      DOSSIER_MODEL: "openai-compatible:fake-model",
      DOSSIER_BASE_URL: w.model.url,
      DOSSIER_API_KEY: "sk-test",
      DOSSIER_SEARCH: "searxng",
      SEARXNG_URL: w.search.baseUrl("searxng"),
      DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = proc;
  let stdout = "";
  let stderr = "";
  proc.stderr!.on("data", (c) => {
    stderr += String(c);
  });
  return new Promise<string>((resolve, reject) => {
    proc.stdout!.on("data", (c) => {
      stdout += String(c);
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+) /.exec(stdout);
      if (m) resolve(m[1]!);
    });
    proc.once("exit", (code) => reject(new Error(`dossier serve exited ${code}: ${stderr}`)));
  });
}

/**
 * Advances the client's clock until `done` settles, 5 s at a time while the injected latency
 * has not passed yet and by `step` after (the SDK's task polling waits on it), pausing a little
 * real time between steps for the server. Returns the client-clock time that passed.
 */
async function runClock<T>(
  done: Promise<T>,
  options: { step?: number } = {},
): Promise<{ value: T; elapsedMs: number }> {
  let settled: { value: T } | { error: unknown } | null = null;
  done.then(
    (value) => {
      settled = { value };
    },
    (error: unknown) => {
      settled = { error };
    },
  );
  let elapsedMs = 0;
  const until = realNow() + 90_000;
  while (settled === null) {
    if (realNow() > until) throw new Error("the run did not finish in 90 s of real time");
    const step = elapsedMs < MODEL_LATENCY_MS + 5_000 ? 5_000 : (options.step ?? 0);
    if (step > 0) {
      await vi.advanceTimersByTimeAsync(step);
      elapsedMs += step;
    }
    await realSleep(50);
  }
  const end = settled as { value: T } | { error: unknown };
  if ("error" in end) throw end.error;
  return { value: end.value, elapsedMs };
}

/** Waits (in real time) until the world's model has been asked `n` times. */
async function modelCalls(w: ResearchWorld, n: number): Promise<void> {
  const until = realNow() + 30_000;
  while (w.model.requests.length < n) {
    if (realNow() > until) throw new Error(`the model was called ${w.model.requests.length} times, not ${n}`);
    await realSleep(20);
  }
}

type Report = { runId: string; status: string; markdown: string; references: unknown[]; title: string };

describe("MCP research longer than the client's request timeout", () => {
  it("fails held open at 60 s, completes via research_start and as a task, with default request options", {
    timeout: 180_000,
  }, async () => {
    // Each run's first model call is held MODEL_LATENCY_MS on the (faked) client clock.
    let holdNext = false;
    world = await startResearchWorld({
      subtasks: 2,
      hold: async () => {
        if (!holdNext) return;
        holdNext = false;
        await new Promise((resolve) => setTimeout(resolve, MODEL_LATENCY_MS));
      },
    });
    const url = await serve(world);
    client = new Client({ name: "default-options", version: "1.0.0" });
    // A connection per request: with the client's timers faked, a kept-alive connection would
    // outlive the server's keep-alive timeout (real time) and could be reset as it is reused.
    const agent = new Agent({ pipelining: 0 });
    const fetchWithoutReuse = ((input: string | URL, init?: RequestInit) =>
      undiciFetch(input, { ...(init as object), dispatcher: agent })) as unknown as typeof fetch;
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { fetch: fetchWithoutReuse }),
    );
    // Listing first: the client then checks structured content against the output schemas.
    const tools = (await client.listTools()).tools;
    expect(tools.find((t) => t.name === "deep_research")?.execution?.taskSupport).toBe("optional");
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const question = "How is topic adoption changing?";
    let calls = world.model.requests.length;

    // Held open, as before: the client gives up at 60 s (and its cancellation cancels the run).
    holdNext = true;
    const held = client.callTool({ name: "deep_research", arguments: { question, strategy: "minddr" } });
    await modelCalls(world, calls + 1);
    const timedOut = await runClock(held).then(
      () => null,
      (error: unknown) => error,
    );
    expect(timedOut).toBeInstanceOf(McpError);
    expect((timedOut as McpError).code).toBe(ErrorCode.RequestTimeout);
    expect((timedOut as McpError).data).toMatchObject({ timeout: CLIENT_TIMEOUT_MS });

    // research_start answers at once; research_status is polled; research_result gives the report.
    await vi.advanceTimersByTimeAsync(MODEL_LATENCY_MS); // lets the abandoned hold go
    calls = world.model.requests.length;
    holdNext = true;
    // On the client's clock too: were it held open, it would time out like the call above.
    const { value: started } = await runClock(
      client.callTool({ name: "research_start", arguments: { question, strategy: "minddr" } }),
    );
    const { runId } = started.structuredContent as { runId: string; status: string };
    expect(started.structuredContent).toMatchObject({ status: "running", done: false });
    await modelCalls(world, calls + 1);
    const polled = await runClock(
      (async () => {
        const seen: string[] = [];
        for (;;) {
          const status = (await client!.callTool({ name: "research_status", arguments: { runId } }))
            .structuredContent as { status: string; done: boolean };
          seen.push(status.status);
          if (status.done) return seen;
          await realSleep(50);
        }
      })(),
    );
    expect(polled.elapsedMs).toBeGreaterThan(CLIENT_TIMEOUT_MS);
    expect(polled.value.at(-1)).toBe("completed");
    expect(polled.value.filter((s) => s === "running").length).toBeGreaterThan(1);
    const result = await client.callTool({ name: "research_result", arguments: { runId } });
    const report = result.structuredContent as Report;
    expect(report).toMatchObject({ runId, status: "completed" });
    expect(report.markdown).toMatch(/\[\d+\]/);
    expect(report.markdown).toContain(world.web.url("/page/"));
    expect(report.references.length).toBeGreaterThan(0);

    // As an MCP task: created at once, polled with tasks/get, the report from tasks/result.
    calls = world.model.requests.length;
    holdNext = true;
    const stream = client.experimental.tasks.callToolStream({
      name: "deep_research",
      arguments: { question, strategy: "minddr" },
    });
    const messages = (async () => {
      const seen: { type: string; status?: string; result?: { structuredContent?: unknown } }[] = [];
      for await (const message of stream) {
        seen.push({
          type: message.type,
          ...("task" in message ? { status: message.task.status } : {}),
          ...(message.type === "result" ? { result: message.result as { structuredContent?: unknown } } : {}),
        });
        if (message.type === "error") throw message.error;
      }
      return seen;
    })();
    await modelCalls(world, calls + 1);
    const tasked = await runClock(messages, { step: 2_000 });
    expect(tasked.elapsedMs).toBeGreaterThan(CLIENT_TIMEOUT_MS);
    expect(tasked.value[0]).toMatchObject({ type: "taskCreated", status: "working" });
    expect(
      tasked.value.filter((m) => m.type === "taskStatus" && m.status === "working").length,
    ).toBeGreaterThan(1);
    const last = tasked.value.at(-1)!;
    expect(last.type).toBe("result");
    const taskReport = last.result!.structuredContent as Report;
    expect(taskReport.status).toBe("completed");
    expect(taskReport.markdown).toMatch(/\[\d+\]/);
    expect(taskReport.runId).not.toBe(runId);
  });
});
