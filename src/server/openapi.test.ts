import { afterEach, describe, expect, it } from "vitest";
import pkg from "../../package.json" with { type: "json" };
import { createServerApp } from "./app.ts";
import { openApiDocument } from "./openapi.ts";
import { strategyListResponseSchema } from "./schemas.ts";
import { createProject, type Project } from "./test-fixtures.ts";

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** The `/v1` routes the app registers, as `METHOD /path/{param}` (middleware left out). */
async function registeredRoutes(): Promise<string[]> {
  project = await createProject();
  const { app, close } = createServerApp({ dossier: project.dossier, token: "t".repeat(32) });
  await close();
  const routes = new Set<string>();
  for (const r of app.routes) {
    if (r.method === "ALL" || !r.path.startsWith("/v1/") || r.path.endsWith("*")) continue;
    routes.add(`${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`);
  }
  return [...routes].sort();
}

describe("OpenAPI document", () => {
  it("documents every /v1 route the server registers", async () => {
    const routes = await registeredRoutes();
    expect(routes).toEqual(
      expect.arrayContaining(["GET /v1/strategies", "GET /v1/corpora", "POST /v1/estimate", "POST /v1/runs"]),
    );
    const paths = openApiDocument({ version: pkg.version }).paths as Record<string, Record<string, unknown>>;
    const missing = routes.filter((route) => {
      const [method, path] = route.split(" ") as [string, string];
      return paths[path]?.[method.toLowerCase()] === undefined;
    });
    expect(missing).toEqual([]);
  });

  it("answers the catalog endpoints in the documented shapes", async () => {
    project = await createProject();
    const { app, close } = createServerApp({ dossier: project.dossier, token: null });
    try {
      const strategies = await (await app.request("/v1/strategies")).json();
      const list = strategyListResponseSchema.parse(strategies).strategies;
      expect(list.find((s) => s.name === "hold")?.options).toEqual([
        { name: "phases", type: "integer", minimum: 0 },
      ]);
      expect(await (await app.request("/v1/corpora")).json()).toEqual({ corpora: ["notes"] });
      const estimate = await app.request("/v1/estimate", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ question: "How do heat pumps cope with cold?", strategy: "hold" }),
      });
      expect(estimate.status).toBe(200);
      expect(await estimate.json()).toMatchObject({
        estimate: { strategy: "hold", llmCalls: [0, 0], toolCalls: [0, 0], costUsd: [0, 0] },
      });
    } finally {
      await close();
    }
  });

  it("answers invalid paths, queries and bodies in the API's error shape, naming the field", async () => {
    project = await createProject();
    const { app, close } = createServerApp({ dossier: project.dossier, token: null });
    try {
      const cases: [string, RequestInit | undefined, string][] = [
        ["/v1/runs?limit=0", undefined, 'limit: expected a whole number from 1 to 1000, got "0"'],
        ["/v1/runs?limit=ten", undefined, 'limit: expected a whole number from 1 to 1000, got "ten"'],
        [
          "/v1/runs?status=done",
          undefined,
          'status: expected one of queued, running, completed, failed, cancelled, interrupted, awaiting-review, got "done"',
        ],
        ["/v1/runs/abc/report/xls", undefined, 'format: expected md, html, json, pdf or docx, got "xls"'],
        [
          "/v1/search",
          { method: "POST", headers: { "content-type": "application/json" }, body: "[1]" },
          "Invalid input: expected object, received array",
        ],
        [
          "/v1/estimate",
          { method: "POST", headers: { "content-type": "application/json" }, body: '{"question":"Why?!"' },
          "the request body is not valid JSON",
        ],
      ];
      for (const [path, init, message] of cases) {
        const response = await app.request(path, init);
        expect(response.status, path).toBe(400);
        expect(await response.json(), path).toEqual({ error: { code: "INPUT_INVALID", message } });
      }
      expect((await app.request("/v1/runs?limit=1000")).status).toBe(200);
    } finally {
      await close();
    }
  });
});
