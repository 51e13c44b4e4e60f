/**
 * POST /v1/runs/{id}/refresh on a real loopback server over the loopback research world (strict
 * scripted model): it answers 201 with the refresh run (its Location, the run refreshed, the
 * version) once checked, and the refresh goes on to rewrite the one section citing the changed
 * page, its diff served by GET /v1/runs/{id}/diff/json; with no change (and no body) no model is
 * called; an unknown run is a 404, an unfinished one a 409 and a bad body a 400, before any call;
 * a refresh whose version another server's refresh took meanwhile is a 409, as is one of an older
 * version.
 */

import { afterEach, describe, expect, it } from "vitest";
import {
  pagesOfSection,
  perSourceSections,
  REFRESH_PARENT,
  sectionsCiting,
} from "../../test/research/refresh-answers.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { createDossier, type Dossier } from "../runtime/dossier.ts";
import { splitSections } from "../runtime/refresh-sections.ts";
import type { Store } from "../store/types.ts";
import { type RunningServer, startServer } from "./listen.ts";

let world: ResearchWorld | undefined;
let dossier: Dossier | undefined;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  await dossier?.close();
  await world?.close();
  server = dossier = world = undefined;
});

const PARENT = REFRESH_PARENT;

function client(s: RunningServer) {
  const headers = { authorization: `Bearer ${s.token}` };
  return {
    get: (path: string) => fetch(`${s.url}${path}`, { headers }),
    post: (path: string, body?: unknown) =>
      fetch(`${s.url}${path}`, {
        method: "POST",
        headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
  };
}

describe("POST /v1/runs/{id}/refresh", () => {
  it("starts a refresh run that rewrites the section citing a changed page; with no change, no model call", async () => {
    world = await startResearchWorld({ subtasks: 4, override: perSourceSections, expectCalls: PARENT });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    const parent = await dossier.research("How is topic adoption changing?", { strategy: "minddr" }).done;
    server = await startServer({ dossier, port: 0 });
    const api = client(server);

    const sections = splitSections(parent.report!.body);
    const [page] = pagesOfSection(parent.report!, sections, "Comparison");
    expect(sectionsCiting(parent.report!, sections, page!)).toEqual(["Comparison"]);
    world.changePages([page!]);
    world.script.expectCalls({ ...PARENT, section: 5 });
    const res = await api.post(`/v1/runs/${parent.runId}/refresh`, { budget: { maxToolCalls: 50 } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as {
      run: { id: string; strategy: string };
      refreshOf: string;
      version: number;
    };
    expect(body).toMatchObject({ refreshOf: parent.runId, version: 2, run: { strategy: "refresh" } });
    expect(res.headers.get("location")).toBe(`/v1/runs/${body.run.id}`);
    const done = await dossier.runs.handle(body.run.id)!.done;
    expect(done.status).toBe("completed");
    const diff = await (await api.get(`/v1/runs/${body.run.id}/diff/json`)).json();
    expect(diff).toMatchObject({ version: 2, refreshOf: parent.runId, sectionsChanged: ["Comparison"] });
    const run = await (await api.get(`/v1/runs/${body.run.id}`)).json();
    expect(run.run.options).toMatchObject({ budget: { maxToolCalls: 50 } });

    // No body at all: the run's own settings; nothing changed since, so no model call.
    const again = await api.post(`/v1/runs/${body.run.id}/refresh`);
    expect(again.status).toBe(201);
    const v3 = (await again.json()) as { run: { id: string }; version: number };
    expect(v3.version).toBe(3);
    expect((await dossier.runs.handle(v3.run.id)!.done).status).toBe("completed");
    const diff3 = await (await api.get(`/v1/runs/${v3.run.id}/diff/json`)).json();
    expect(diff3).toMatchObject({ sectionsChanged: [], claimsAdded: [], claimsRemoved: [] });
  });

  it("answers a refresh whose version another server took meanwhile with a 409, and an older version's with a 409", async () => {
    world = await startResearchWorld({ subtasks: 4, override: perSourceSections, expectCalls: PARENT });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    const parent = await dossier.research("How is topic adoption changing?", { strategy: "minddr" }).done;
    server = await startServer({ dossier, port: 0 });
    // Another server on the same store whose refresh runs are created only when let go: both
    // refreshes pass their checks before either run exists.
    const base = dossier.store;
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let reached!: () => void;
    const atGate = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const create: Store["runs"]["create"] = async (run) => {
      if (run.strategy === "refresh") {
        reached();
        await gate;
      }
      return base.runs.create(run);
    };
    const runs = new Proxy(base.runs, {
      get: (target, property) => (property === "create" ? create : Reflect.get(target, property)),
    });
    const held: Store = { ...base, runs };
    const slowDossier = createDossier({ config: world.config, cwd: world.home, env: {}, store: held });
    const slow = await startServer({ dossier: slowDossier, port: 0 });
    try {
      world.script.expectCalls(PARENT); // nothing changed: no model call
      const late = client(slow).post(`/v1/runs/${parent.runId}/refresh`, {});
      await atGate;
      const first = await client(server).post(`/v1/runs/${parent.runId}/refresh`, {});
      expect(first.status).toBe(201);
      const created = (await first.json()) as { run: { id: string }; version: number };
      expect(created.version).toBe(2);
      letGo();
      const refused = await late;
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({
        error: { code: "CONFLICT", message: expect.stringContaining(`is held by run ${created.run.id}`) },
      });
      expect((await dossier.runs.handle(created.run.id)!.done).status).toBe("completed");
      // Version 1 is no longer the one to refresh: 409 naming the latest.
      const older = await client(server).post(`/v1/runs/${parent.runId}/refresh`, {});
      expect(older.status).toBe(409);
      expect(await older.json()).toMatchObject({
        error: {
          code: "CONFLICT",
          message: expect.stringContaining(`latest is version 2 (run ${created.run.id})`),
        },
      });
    } finally {
      await slow.close();
      await slowDossier.close();
    }
  });

  it("refuses an unknown run, an unfinished run and a bad body before any model call", async () => {
    world = await startResearchWorld({ expectCalls: {} });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    await dossier.store.runs.create({
      id: "r-running",
      query: "q",
      strategy: "minddr",
      options: {},
      createdAt: new Date().toISOString(),
    });
    server = await startServer({ dossier, port: 0 });
    const api = client(server);
    const unknown = await api.post("/v1/runs/no-such-run/refresh", {});
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
    const unfinished = await api.post("/v1/runs/r-running/refresh", {});
    expect(unfinished.status).toBe(409);
    expect(await unfinished.json()).toMatchObject({ error: { code: "CONFLICT" } });
    const bad = await api.post("/v1/runs/r-running/refresh", { maxSearches: 99 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: "INPUT_INVALID", message: expect.stringContaining("maxSearches") },
    });
    const extra = await api.post("/v1/runs/r-running/refresh", { strategy: "graph" });
    expect(extra.status).toBe(400);
    expect(world.model.requests).toHaveLength(0);
  });
});
