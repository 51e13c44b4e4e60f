/**
 * Plan review over HTTP on a real loopback server (the offline strategy over the project's
 * corpus): a run created with `reviewPlan` streams `plan-review` and a `run-end` of status
 * `awaiting-review`; GET /plan serves the plan; a bad edit is 400 with nothing changed; an edit
 * is 202 and the run then researches exactly the edited facets; a second answer is 409; a run
 * never reviewed has no plan (404); the OpenAPI document describes both operations.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { DossierEvent } from "../core/events.ts";
import { type RunningServer, startServer } from "./listen.ts";
import { openApiDocument } from "./openapi.ts";
import { createProject, type Project, readSse } from "./test-fixtures.ts";

let project: Project | undefined;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  await project?.close();
  server = undefined;
  project = undefined;
});

const QUESTION = "How do heat pumps perform in cold climates?";

async function start() {
  project = await createProject();
  server = await startServer({ dossier: project.dossier, port: 0, keepAliveMs: 200 });
  return server;
}

const auth = () => ({ authorization: `Bearer ${server!.token}` });
const get = (path: string) => fetch(`${server!.url}${path}`, { headers: auth() });
const post = (path: string, body: unknown) =>
  fetch(`${server!.url}${path}`, {
    method: "POST",
    headers: { ...auth(), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const streamed = async (runId: string, after = 0) =>
  (await readSse(await get(`/v1/runs/${runId}/events?after=${after}`))).map(
    (e) => JSON.parse(e.data) as DossierEvent,
  );

interface Review {
  runId: string;
  status: string;
  stage: string;
  plan: { strategy: string; kind: string; items: { id: string; title: string }[] };
  changes: { added: string[]; removed: string[] } | null;
  deadline: string;
}

describe("plan review over HTTP", () => {
  it("stops after the plan, serves it, refuses a bad edit, and runs exactly the edited plan", async () => {
    await start();
    const created = await post("/v1/runs", {
      question: QUESTION,
      strategy: "offline",
      corpus: "notes",
      sources: "local",
      reviewPlan: true,
      reviewTimeoutMinutes: 90,
    });
    expect(created.status).toBe(201);
    const { run } = (await created.json()) as { run: { id: string } };
    // The event stream ends with the pause: the plan, then run-end awaiting-review.
    const first = await streamed(run.id);
    expect(first.slice(-2).map((e) => e.type)).toEqual(["plan-review", "run-end"]);
    expect(first.at(-1)).toMatchObject({ status: "awaiting-review", stopReason: "awaiting-review" });
    const status = (await (await get(`/v1/runs/${run.id}`)).json()) as { run: { status: string } };
    expect(status.run.status).toBe("awaiting-review");

    const pending = (await (await get(`/v1/runs/${run.id}/plan`)).json()) as Review;
    expect(pending).toMatchObject({
      runId: run.id,
      status: "awaiting-review",
      stage: "pending",
      changes: null,
    });
    expect(pending.plan).toMatchObject({ strategy: "offline", kind: "facets" });
    // The deadline is the timeout after the plan was recorded (to the clock's reading a moment before).
    const waits =
      Date.parse(pending.deadline) - Date.parse((pending as unknown as { requestedAt: string }).requestedAt);
    expect(waits).toBeGreaterThan(90 * 60_000 - 1000);
    expect(waits).toBeLessThanOrEqual(90 * 60_000);

    // A bad edit: 400 naming the field, and nothing changes.
    const seq = first.length;
    const bad = await post(`/v1/runs/${run.id}/plan`, {
      action: "edit",
      plan: { items: [{ id: "nope", title: "x" }] },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "INPUT_INVALID",
      message: expect.stringContaining('no item "nope"'),
    });
    const shapeless = await post(`/v1/runs/${run.id}/plan`, { action: "edit" });
    expect(shapeless.status).toBe(400);
    expect(((await (await get(`/v1/runs/${run.id}`)).json()) as { run: { status: string } }).run.status).toBe(
      "awaiting-review",
    );
    expect((await project!.dossier.runs.events(run.id)).length).toBe(seq);

    // The edit: the first facet kept (when there is one), one added.
    const kept = pending.plan.items.slice(0, 1);
    const edited = { items: [...kept, { title: "cold climate trial" }] };
    const answered = await post(`/v1/runs/${run.id}/plan`, { action: "edit", plan: edited });
    expect(answered.status).toBe(202);
    const body = (await answered.json()) as { run: { id: string }; review: Review };
    expect(body.review).toMatchObject({ stage: "edited", changes: { added: ["new-1"] } });
    const executed = [...kept.map((i) => i.title), "cold climate trial"];
    expect(body.review.plan.items.map((i) => i.title)).toEqual(executed);
    // The stream after the pause: the review, the resume, and the run to its end.
    const rest = await streamed(run.id, seq);
    expect(rest[0]).toMatchObject({ type: "plan-reviewed", action: "edit" });
    expect(rest.at(-1)).toMatchObject({ type: "run-end", status: "completed" });
    const searched = rest
      .filter((e): e is Extract<DossierEvent, { type: "tool-start" }> => e.type === "tool-start")
      .map((e) => (e.args as { query: string }).query)
      .filter((q) => q !== QUESTION)
      .map((q) => q.slice(QUESTION.length + 1));
    expect(searched).toEqual(executed);

    // Answered once: 409. The approved plan stays readable.
    const again = await post(`/v1/runs/${run.id}/plan`, { action: "approve" });
    expect(again.status).toBe(409);
    expect(((await (await get(`/v1/runs/${run.id}/plan`)).json()) as Review).stage).toBe("edited");
  }, 30_000);

  it("rejects through the API (and through cancel), and has no plan for a run never reviewed", async () => {
    await start();
    const create = async (reviewPlan: boolean) => {
      const created = await post("/v1/runs", {
        question: QUESTION,
        strategy: "offline",
        corpus: "notes",
        sources: "local",
        reviewPlan,
      });
      const { run } = (await created.json()) as { run: { id: string } };
      await streamed(run.id);
      return run.id;
    };
    const a = await create(true);
    const rejected = await post(`/v1/runs/${a}/plan`, { action: "reject", reason: "not this" });
    expect(rejected.status).toBe(202);
    expect(((await rejected.json()) as { run: { status: string; stopReason: string } }).run).toMatchObject({
      status: "cancelled",
      stopReason: "plan-rejected",
    });
    const b = await create(true);
    const cancelled = await post(`/v1/runs/${b}/cancel`, {});
    expect(cancelled.status).toBe(202);
    expect(((await (await get(`/v1/runs/${b}/plan`)).json()) as Review).stage).toBe("rejected");
    const c = await create(false);
    expect((await get(`/v1/runs/${c}/plan`)).status).toBe(404);
    // A strategy without a plan point refuses reviewPlan before anything is created.
    const refused = await post("/v1/runs", {
      question: QUESTION,
      strategy: "hold",
      corpus: "notes",
      reviewPlan: true,
    });
    expect(refused.status).toBe(400);
  }, 30_000);

  it("documents GET and POST /v1/runs/{id}/plan with their schemas", () => {
    const doc = openApiDocument({ version: "0" }) as {
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, unknown> };
    };
    const path = doc.paths["/v1/runs/{id}/plan"]!;
    expect(Object.keys(path).sort()).toEqual(["get", "post"]);
    expect(Object.keys(path.post!.responses)).toEqual(expect.arrayContaining(["202", "400", "404", "409"]));
    for (const name of ["Plan", "PlanReview", "PlanAnswer"])
      expect(doc.components.schemas[name]).toBeDefined();
    const body = doc.components.schemas.CreateRunBody as { properties: Record<string, unknown> };
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining(["reviewPlan", "reviewTimeoutMinutes"]),
    );
    const run = doc.components.schemas.Run as { properties: { status: { enum: string[] } } };
    expect(run.properties.status.enum).toContain("awaiting-review");
  });
});
