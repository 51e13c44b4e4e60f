import { afterEach, describe, expect, it } from "vitest";
import { DossierError } from "../core/errors.ts";
import { errorResult } from "../mcp/context.ts";
import type { DossierOptions } from "../runtime/dossier.ts";
import { createServerApp, type ServerApp } from "./app.ts";
import { createProject, type Project } from "./test-fixtures.ts";

let project: Project | undefined;
let server: ServerApp | undefined;
afterEach(async () => {
  await server?.close();
  await project?.close();
  server = project = undefined;
});

async function app(options: Partial<DossierOptions> = {}, maxRuns = 2): Promise<ServerApp> {
  project = await createProject(options);
  server = createServerApp({ dossier: project.dossier, token: null, maxRuns });
  return server;
}

const post = (path: string, body: unknown) =>
  server!.app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/** A command-line flag such as `--max-cost` or `--docs`. */
const FLAG = /(?:^|[\s("'`])--[a-z]/;

/** The error an API call answers, checked to speak the API's words: no flag, no server path. */
async function apiError(response: Response, status: number, code: string): Promise<string> {
  expect(response.status).toBe(status);
  const { error } = (await response.json()) as { error: { code: string; message: string } };
  expect(error.code).toBe(code);
  expect(error.message).not.toMatch(FLAG);
  expect(error.message).not.toContain(project!.root);
  return error.message;
}

const question = "How do heat pumps cope with cold winters?";
/** A model without a price (never called: every request here is refused before). */
const unpricedModel = { config: { model: "openai-compatible:m", baseUrl: "http://127.0.0.1:9/v1" } };

describe("HTTP API error messages name API fields, not command-line flags", () => {
  it("a cost budget with an unpriced model names budget.maxCostUsd and budget.maxTokens", async () => {
    await app(unpricedModel);
    const message = await apiError(
      await post("/v1/runs", { question, strategy: "graph", budget: { maxCostUsd: 1 } }),
      400,
      "INPUT_INVALID",
    );
    expect(message).toMatch(
      /^budget\.maxCostUsd needs a price for every model the run uses, and openai-compatible:m has none/,
    );
    expect(message).toContain("budget.maxTokens");
  });

  it("web sources without a search provider point at corpus and sources", async () => {
    await app(unpricedModel);
    const message = await apiError(
      await post("/v1/runs", { question, strategy: "graph", sources: "web" }),
      422,
      "PROVIDER_NOT_CONFIGURED",
    );
    expect(message).toContain('corpus and sources "local"');
  });

  it("no model and no corpus, or local sources without a corpus, point at the corpus field", async () => {
    await app();
    const noModel = await apiError(await post("/v1/runs", { question }), 422, "MODEL_NOT_CONFIGURED");
    expect(noModel).toContain("(corpus)");
    const noDocs = await apiError(
      await post("/v1/runs", { question, strategy: "hold", sources: "local" }),
      400,
      "INPUT_INVALID",
    );
    expect(noDocs).toBe('sources "local" needs documents: name an indexed corpus (corpus)');
  });

  it("an unknown corpus and the run limit are told without the CLI's commands or the server's paths", async () => {
    await app({}, 1);
    const corpus = await apiError(
      await post("/v1/search", { query: "defrost", provider: "local", corpus: "nope" }),
      404,
      "NOT_FOUND",
    );
    expect(corpus).toContain('no corpus named "nope"');
    expect(corpus).not.toContain("dossier index");
    const hold = { question, strategy: "hold", corpus: "notes" };
    expect((await post("/v1/runs", hold)).status).toBe(201);
    const busy = await apiError(await post("/v1/runs", hold), 429, "RATE_LIMITED");
    expect(busy).toContain("1 of 1");
  });

  it("MCP tool errors are phrased for the API too", () => {
    const error = new DossierError("INPUT_INVALID", "--max-cost needs a price", {
      details: { apiMessage: "budget.maxCostUsd needs a price" },
    });
    expect(errorResult(error).content[0]!.text).toBe(
      "error [INPUT_INVALID]: budget.maxCostUsd needs a price",
    );
  });
});
