/**
 * Plan review over MCP (streamable HTTP on a loopback server, minddr over the scripted research
 * world, the SDK's client): with elicitation, `deep_research` asks the plan in a form — an edit
 * the engine refuses is asked again with the reason — and answers with the report of exactly
 * the edited plan; `research_start` asks it on the session's own stream; a rejection ends the
 * run. Declined, or without elicitation, the plan waits: `research_status` shows it and
 * `research_review` answers it.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  type ElicitRequestFormParams,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { eventsOf } from "../../test/research/plan-review.ts";
import { type ResearchWorld, startResearchWorld, type WorldOptions } from "../../test/research/world.ts";
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

/** Every call of a run of three subtasks (the planner's answer replayed after the review). */
const FULL_RUN: WorldOptions["expectCalls"] = {
  planner: 1,
  "search-step": 3,
  reader: 3,
  "sub-report": 3,
  outline: 1,
  section: 4,
  coherence: 1,
};

async function start(expectCalls: WorldOptions["expectCalls"] = FULL_RUN) {
  world = await startResearchWorld({ subtasks: 3, expectCalls });
  dossier = createDossier({ cwd: world.home, env: worldCliEnv(world) });
  server = await startServer({ dossier, port: 0, token: null });
}

/** A client; with `elicit`, one that declares form elicitation and answers it so. */
async function connect(elicit?: (params: ElicitRequestFormParams) => ElicitResult | Promise<ElicitResult>) {
  const client = new Client(
    { name: "review", version: "1.0.0" },
    elicit ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  if (elicit)
    client.setRequestHandler(ElicitRequestSchema, (r) => elicit(r.params as ElicitRequestFormParams));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server!.url}/mcp`)));
  clients.push(client);
  return client;
}

async function waitFor<T>(check: () => Promise<T | false | undefined>, ms = 30_000) {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Status {
  runId: string;
  status: string;
  done: boolean;
  stopReason: string | null;
  next: string;
  review?: { stage: string; deadline: string; kind: string; items: { id: string; title: string }[] };
}

const status = async (client: Client, runId: string) =>
  (await client.callTool({ name: "research_status", arguments: { runId } }))
    .structuredContent as unknown as Status;
const text = (result: unknown) => (result as { content: { text?: string }[] }).content[0]?.text ?? "";

const question = "How is topic adoption changing?";
const EDITED = ["Aspect 1", "Aspect 3", "Aspect 7 costs"];

/** The subtasks the run searched after its review, in order. */
async function searchedAfterReview(runId: string) {
  const events = await dossier!.runs.events(runId);
  const resumed = events.findIndex((e) => e.type === "run-resume");
  return eventsOf(events.slice(resumed), "node-start")
    .filter((e) => e.nodeType === "search")
    .map((e) => e.title);
}

describe("MCP plan review", { timeout: 90_000 }, () => {
  it("asks through elicitation within deep_research, asks again after a refused edit, and reports the edited plan", async () => {
    await start();
    const asked: ElicitRequestFormParams[] = [];
    const client = await connect((params) => {
      asked.push(params);
      const lines = String((params.requestedSchema.properties.plan as { default?: string }).default);
      // First an item that does not exist, then the plan edited: T-2 removed, one added.
      const plan =
        asked.length === 1
          ? `${lines}\n[T-9] Nope`
          : `${lines
              .split("\n")
              .filter((l) => !l.includes("Nope") && !l.startsWith("[T-2]"))
              .join("\n")}\nAspect 7 costs`;
      return { action: "accept", content: { decision: "approve", plan } };
    });
    const progress: string[] = [];
    const values: number[] = [];
    const result = (await client.callTool(
      { name: "deep_research", arguments: { question, strategy: "minddr", reviewPlan: true } },
      undefined,
      {
        onprogress: (p) => {
          progress.push(p.message ?? "");
          values.push(p.progress);
        },
      },
    )) as CallToolResult;
    expect(result.isError, text(result)).toBeFalsy();
    const report = result.structuredContent as { runId: string; status: string; markdown: string };
    expect(report.status).toBe("completed");
    expect(report.markdown).toMatch(/\[\d+\]/);

    expect(asked).toHaveLength(2);
    expect(asked[0]!.message).toContain(`Research run ${report.runId} stopped after planning: ${question}`);
    expect(asked[0]!.message).toContain("1. [T-1] Aspect 1\n   Find evidence about aspect 1 of the question");
    expect(asked[0]!.requestedSchema.properties.plan).toMatchObject({
      type: "string",
      default: "[T-1] Aspect 1\n[T-2] Aspect 2\n[T-3] Aspect 3",
    });
    expect(asked[1]!.message).toMatch(/^Your last answer was refused: .*T-9/);

    expect(await searchedAfterReview(report.runId)).toEqual(EDITED);
    const events = await dossier!.runs.events(report.runId);
    expect(eventsOf(events, "plan-reviewed")).toEqual([
      expect.objectContaining({
        action: "edit",
        changes: expect.objectContaining({ removed: ["T-2"], added: ["new-1"] }),
      }),
    ]);
    // The progress went on across the review, in one rising sequence.
    expect(progress.some((m) => m.startsWith("plan ready for review: 3 subtasks"))).toBe(true);
    expect(progress).toContain("plan edited and approved");
    expect(progress.filter((m) => m.startsWith("started"))).toHaveLength(1);
    expect(progress.filter((m) => m.startsWith("researching: "))).toEqual([
      ...EDITED.map((t) => `researching: ${t}`),
      "researching: Report",
    ]);
    expect(values).toEqual([...new Set(values)].sort((a, b) => a - b));
  });

  it("leaves a declined plan awaiting review: research_status shows it, research_review approves it", async () => {
    await start();
    const client = await connect(() => ({ action: "decline" }));
    const result = await client.callTool({
      name: "deep_research",
      arguments: { question, strategy: "minddr", reviewPlan: true },
    });
    expect(result.isError).toBe(true);
    const runId = /^run (\S+) awaits review of its plan \(the review form was declined\)/.exec(
      text(result),
    )?.[1];
    expect(runId, text(result)).toBeDefined();
    expect(text(result)).toContain("1. [T-1] Aspect 1");

    const waiting = await status(client, runId!);
    expect(waiting).toMatchObject({ status: "awaiting-review", done: false });
    expect(waiting.review).toMatchObject({ stage: "pending", kind: "subtasks" });
    expect(waiting.review!.items.map((i) => i.id)).toEqual(["T-1", "T-2", "T-3"]);
    expect(waiting.next).toContain(`call research_review with runId ${runId}`);
    expect((await dossier!.runs.plan(runId!))?.deadline).toBe(waiting.review!.deadline);

    const answered = await client.callTool({
      name: "research_review",
      arguments: { runId, action: "approve" },
    });
    expect(answered.isError, text(answered)).toBeFalsy();
    expect(text(answered)).toMatch(/^plan approved: run /);
    const done = await waitFor(async () => {
      const s = await status(client, runId!);
      return s.done && s;
    });
    expect(done.status).toBe("completed");
    const report = await client.callTool({ name: "research_result", arguments: { runId } });
    expect(report.structuredContent).toMatchObject({ runId, status: "completed" });
    expect(await searchedAfterReview(runId!)).toEqual(["Aspect 1", "Aspect 2", "Aspect 3"]);
    expect(eventsOf(await dossier!.runs.events(runId!), "plan-reviewed")).toMatchObject([
      { action: "approve" },
    ]);
  });

  it("without elicitation: research_start, the plan in research_status, research_review refuses a bad edit and runs a good one", async () => {
    await start();
    const client = await connect();
    const started = await client.callTool({
      name: "research_start",
      arguments: { question, strategy: "minddr", reviewPlan: true },
    });
    const { runId } = started.structuredContent as { runId: string };
    const waiting = await waitFor(async () => {
      const s = await status(client, runId);
      return s.status === "awaiting-review" && s;
    });
    expect(waiting.review!.items.map((i) => i.title)).toEqual(["Aspect 1", "Aspect 2", "Aspect 3"]);
    const review = (args: Record<string, unknown>) =>
      client.callTool({ name: "research_review", arguments: { runId, ...args } });

    // Refused before anything changes: the caller's invalid params.
    await expect(review({ action: "edit" })).rejects.toThrow(/plan/);
    await expect(review({ action: "approve", plan: { items: [{ title: "x" }] } })).rejects.toThrow(
      /use action edit/,
    );
    await expect(review({ action: "edit", plan: { items: [{ id: "T-9", title: "x" }] } })).rejects.toThrow(
      /T-9/,
    );
    expect((await status(client, runId)).status).toBe("awaiting-review");

    const items = [
      { id: "T-1", title: "Aspect 1" },
      { id: "T-3", title: "Aspect 3" },
      { title: "Aspect 7 costs" },
    ];
    const answered = await review({ action: "edit", plan: { items } });
    expect(answered.isError, text(answered)).toBeFalsy();
    expect(text(answered)).toMatch(/^plan edited and approved: run /);
    const done = await waitFor(async () => {
      const s = await status(client, runId);
      return s.done && s;
    });
    expect(done).toMatchObject({ status: "completed" });
    expect(done.review).toBeUndefined();
    expect(await searchedAfterReview(runId)).toEqual(EDITED);
    // A review answered already is a tool error the model reads, not a crash.
    const again = await review({ action: "approve" });
    expect(again.isError).toBe(true);
    expect(text(again)).toMatch(/^error \[CONFLICT\]: .*not awaiting review/);
  });

  it("asks a research_start run's plan on the session's own stream, and ends the run when it is rejected", async () => {
    await start({ ...FULL_RUN, planner: 2 });
    const asked: string[] = [];
    const client = await connect((params): ElicitResult => {
      asked.push(params.message);
      return asked.length === 1
        ? { action: "accept", content: { decision: "approve" } }
        : { action: "accept", content: { decision: "reject", reason: "not what I asked" } };
    });
    const started = await client.callTool({
      name: "research_start",
      arguments: { question, strategy: "minddr", reviewPlan: true },
    });
    const { runId } = started.structuredContent as { runId: string };
    const done = await waitFor(async () => {
      const s = await status(client, runId);
      return s.done && s;
    });
    expect(done.status).toBe("completed");
    expect(asked).toHaveLength(1);
    expect(eventsOf(await dossier!.runs.events(runId), "plan-reviewed")).toMatchObject([
      { action: "approve" },
    ]);

    const rejected = await client.callTool({
      name: "deep_research",
      arguments: { question, strategy: "minddr", reviewPlan: true },
    });
    expect(rejected.isError).toBe(true);
    expect(text(rejected)).toMatch(/^run \S+ cancelled: plan-rejected$/);
    const [latest] = await dossier!.runs.list();
    expect(latest).toMatchObject({ status: "cancelled", stopReason: "plan-rejected" });
    expect(eventsOf(await dossier!.runs.events(latest!.id), "plan-reviewed")).toMatchObject([
      { action: "reject", reason: "not what I asked" },
    ]);
  });

  it("asks the plan of deep_research run as a task, and the task ends with the edited plan's report", async () => {
    await start();
    let asked = 0;
    const client = await connect((params) => {
      asked++;
      const lines = String((params.requestedSchema.properties.plan as { default?: string }).default);
      const plan = `${lines
        .split("\n")
        .filter((l) => !l.startsWith("[T-2]"))
        .join("\n")}\nAspect 7 costs`;
      return { action: "accept", content: { decision: "approve", plan } };
    });
    // The client asks for a task once it knows the tool takes one.
    await client.listTools();
    const stream = client.experimental.tasks.callToolStream({
      name: "deep_research",
      arguments: { question, strategy: "minddr", reviewPlan: true },
    });
    const seen: { type: string; result?: unknown }[] = [];
    for await (const message of stream) {
      seen.push({ type: message.type, ...(message.type === "result" ? { result: message.result } : {}) });
      if (message.type === "error") throw message.error;
    }
    expect(seen[0]!.type).toBe("taskCreated");
    const last = seen.at(-1)!;
    expect(last.type).toBe("result");
    const report = (last.result as { structuredContent: { runId: string; status: string } })
      .structuredContent;
    expect(report.status).toBe("completed");
    expect(asked).toBe(1);
    expect(await searchedAfterReview(report.runId)).toEqual(EDITED);
  });
});
