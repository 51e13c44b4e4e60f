/**
 * GET /v1/workers without a run queue: this server is the one worker, its --max-runs its slots,
 * the runs under way its load; the store's queued and running runs are counted. (With the queue
 * on Redis, see queue/run-worker.test.ts.)
 */

import { afterEach, describe, expect, it } from "vitest";
import { createServerApp, type ServerApp } from "./app.ts";
import { createProject, type Project } from "./test-fixtures.ts";
import type { WorkersView } from "./workers-routes.ts";

let project: Project | undefined;
let server: ServerApp | undefined;
afterEach(async () => {
  await server?.close();
  await project?.close();
  server = project = undefined;
});

const workers = async () => {
  const response = await server!.app.request("/v1/workers");
  expect(response.status).toBe(200);
  return (await response.json()) as WorkersView;
};

describe("GET /v1/workers without a queue", () => {
  it("shows this server as the worker, with its slots and the runs under way in it", async () => {
    project = await createProject();
    server = createServerApp({ dossier: project.dossier, token: null, maxRuns: 3 });
    const idle = await workers();
    expect(idle).toMatchObject({ mode: "embedded", queue: null, runs: { queued: 0, running: 0 } });
    expect(idle.workers).toEqual([
      expect.objectContaining({ pid: process.pid, concurrency: 3, running: [] }),
    ]);

    const created = await server.app.request("/v1/runs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        question: "Hold this run until it is cancelled",
        strategy: "hold",
        corpus: "notes",
      }),
    });
    expect(created.status).toBe(201);
    const { run } = (await created.json()) as { run: { id: string } };
    await expect.poll(async () => (await workers()).runs.running).toBe(1);
    expect((await workers()).workers[0]!.running).toEqual([run.id]);

    await server.app.request(`/v1/runs/${run.id}/cancel`, { method: "POST" });
    await expect.poll(async () => (await workers()).workers[0]!.running).toEqual([]);
    expect((await workers()).runs).toEqual({ queued: 0, running: 0 });
  });

  it("needs the token like every other route", async () => {
    project = await createProject();
    server = createServerApp({ dossier: project.dossier, token: "t".repeat(32) });
    expect((await server.app.request("/v1/workers")).status).toBe(401);
  });
});
