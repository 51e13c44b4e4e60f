import { createConfig, lintFromString } from "@redocly/openapi-core";
import { afterEach, describe, expect, it } from "vitest";
import pkg from "../../package.json" with { type: "json" };
import { createServerApp } from "./app.ts";
import { openApiDocument } from "./openapi.ts";
import { createProject, type Project } from "./test-fixtures.ts";

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** The document as the server serves it. */
async function servedDocument(): Promise<string> {
  project = await createProject();
  const { app, close } = createServerApp({ dossier: project.dossier, token: "t".repeat(32) });
  try {
    const response = await app.request("/openapi.json");
    expect(response.status).toBe(200);
    return await response.text();
  } finally {
    await close();
  }
}

describe("OpenAPI document — lint", () => {
  it("has no error under Redocly's recommended rules; the only warnings are the two token-free reads without a 4xx", async () => {
    const source = await servedDocument();
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source, absoluteRef: "openapi.json", config });
    const errors = problems.filter((p) => p.severity === "error");
    expect(errors.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    const warnings = problems
      .filter((p) => p.severity === "warn")
      .map((p) => `${p.ruleId} ${p.location[0]?.pointer}`)
      .sort();
    expect(warnings).toEqual([
      "operation-4xx-response #/paths/~1health/get/responses",
      "operation-4xx-response #/paths/~1openapi.json/get/responses",
    ]);
  });

  it("names every operation with a unique, stable operationId and serves it relative to itself", async () => {
    const served = await servedDocument();
    // The library's document is the served one.
    expect(JSON.parse(served)).toEqual(openApiDocument({ version: pkg.version }));
    const doc = JSON.parse(served) as {
      servers: { url: string }[];
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    expect(doc.servers).toEqual([{ url: "/", description: expect.any(String) }]);
    const ids = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(ids.sort()).toEqual(
      [
        "GET /health getHealth",
        "GET /openapi.json getOpenApiDocument",
        "POST /v1/runs createRun",
        "GET /v1/runs listRuns",
        "GET /v1/runs/{id} getRun",
        "POST /v1/runs/{id}/cancel cancelRun",
        "POST /v1/runs/{id}/plan answerRunPlan",
        "POST /v1/runs/{id}/resume resumeRun",
        "GET /v1/runs/{id}/events streamRunEvents",
        "GET /v1/runs/{id}/plan getRunPlan",
        "GET /v1/runs/{id}/report/{format} getRunReport",
        "GET /v1/runs/{id}/webhooks listRunWebhooks",
        "GET /v1/runs/{id}/diff/{format} getRunDiff",
        "POST /v1/runs/{id}/refresh refreshRun",
        "POST /v1/ask ask",
        "POST /v1/search search",
        "POST /v1/fetch fetchPage",
        "GET /v1/strategies listStrategies",
        "GET /v1/corpora listCorpora",
        "POST /v1/estimate estimateRun",
        "GET /v1/workers listWorkers",
        "POST /mcp postMcpMessage",
        "GET /mcp openMcpStream",
        "DELETE /mcp closeMcpSession",
      ].sort(),
    );
  });
});
