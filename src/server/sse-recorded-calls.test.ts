/**
 * Recorded model calls (`llm-call` events, training data) stay out of a run's live event
 * stream: the web UI and SSE clients get every other event, in order, with their own ids. A
 * create-run body may ask for them (`recordCalls`).
 */

import { afterEach, describe, expect, it } from "vitest";
import type { DossierEvent, EventInput } from "../core/events.ts";
import { type RunningServer, startServer } from "./listen.ts";
import { createProject, type Project, readSse } from "./test-fixtures.ts";

let project: Project | undefined;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  await project?.close();
});

describe("the event stream of a run that recorded its calls", () => {
  it("leaves the llm-call events out and keeps the others' sequence ids", async () => {
    project = await createProject();
    server = await startServer({ dossier: project.dossier, port: 0, keepAliveMs: 200 });
    const store = project.dossier.store;
    const now = new Date().toISOString();
    await store.runs.create({
      id: "run-recorded",
      query: "q?",
      strategy: "smtl",
      options: {},
      createdAt: now,
    });
    const inputs: EventInput[] = [
      { type: "run-start", query: "q?", strategy: "smtl", options: { recordCalls: true } },
      {
        type: "llm-call",
        callId: "L1",
        role: "searcher",
        model: "m:p",
        step: 1,
        messages: [{ role: "user", content: "q?" }],
        sampling: {},
        completion: "a long completion",
        formatErrors: [],
        replayed: false,
        startedAt: now,
      },
      { type: "phase", phase: "answer" },
      { type: "run-end", status: "completed", stopReason: "completed" },
    ];
    for (const input of inputs) await store.events.append("run-recorded", input, now);
    await store.runs.update("run-recorded", { status: "completed", updatedAt: now, finishedAt: now });

    const response = await fetch(`${server.url}/v1/runs/run-recorded/events`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    const sse = await readSse(response);
    const seen = sse.map((e) => JSON.parse(e.data) as DossierEvent);
    expect(seen.map((e) => e.type)).toEqual(["run-start", "phase", "run-end"]);
    expect(sse.map((e) => e.id)).toEqual(["1", "3", "4"]);
  });

  it("takes recordCalls in a create-run body and keeps it in the run's options", async () => {
    project = await createProject();
    server = await startServer({ dossier: project.dossier, port: 0, keepAliveMs: 200 });
    const headers = { authorization: `Bearer ${server.token}`, "content-type": "application/json" };
    const created = await fetch(`${server.url}/v1/runs`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        question: "How do heat pumps perform in cold climates?",
        strategy: "offline",
        corpus: "notes",
        sources: "local",
        recordCalls: true,
      }),
    });
    expect(created.status).toBe(201);
    const { run } = (await created.json()) as { run: { id: string } };
    const sse = await readSse(await fetch(`${server.url}/v1/runs/${run.id}/events`, { headers }));
    const start = JSON.parse(sse[0]!.data) as DossierEvent;
    expect(start).toMatchObject({ type: "run-start", options: { recordCalls: true } });
  });
});
