/**
 * What a client needs to offer a new run: the strategies with their options, the indexed
 * local corpora, and the dry estimate of a run (mounted under `/v1`).
 */

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { ApiServices } from "./api-services.ts";
import { CorpusList, CreateRunBody, EstimateResponse, StrategyList } from "./components.ts";
import { bodyRoute, createRouter, errorResponses, jsonResponse } from "./route-kit.ts";
import { strategyOptions } from "./strategy-options.ts";

const listStrategies = createRoute({
  method: "get",
  path: "/strategies",
  operationId: "listStrategies",
  tags: ["catalog"],
  summary: "The strategies a run can use",
  description: "Each with what it needs (a model, the web, a corpus) and its own options.",
  responses: { 200: jsonResponse("the strategies", StrategyList), ...errorResponses() },
});

const listCorpora = createRoute({
  method: "get",
  path: "/corpora",
  operationId: "listCorpora",
  tags: ["catalog"],
  summary: "The indexed local corpora",
  description: "Corpora are indexed with `dossier index`.",
  responses: { 200: jsonResponse("the corpus names", CorpusList), ...errorResponses() },
});

const estimateRun = bodyRoute(
  {
    method: "post",
    path: "/estimate",
    operationId: "estimateRun",
    tags: ["catalog"],
    summary: "Estimate a run without running it",
    description:
      "Model calls, tool calls, tokens and cost of the run the same body would start, as low and high figures. `formats` is ignored.",
    responses: { 200: jsonResponse("the estimate", EstimateResponse), ...errorResponses(400, 413, 422) },
  },
  { schema: CreateRunBody, description: "a create-run body" },
);

/** The `/strategies`, `/corpora` and `/estimate` routes (mounted under `/v1`). */
export function catalogRoutes(services: () => ApiServices): OpenAPIHono {
  const app = createRouter();

  app.openapi(listStrategies, (c) => {
    const strategies = services()
      .dossier.strategies.list()
      .map((s) => ({
        name: s.name,
        description: s.description,
        capabilities: s.capabilities,
        options: strategyOptions(s.optionsSchema),
      }));
    return c.json({ strategies }, 200);
  });

  app.openapi(listCorpora, (c) => {
    const dir = join(services().dossier.home, "corpus");
    const corpora = existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith(".db"))
          .map((f) => f.slice(0, -3))
          .sort()
      : [];
    return c.json({ corpora }, 200);
  });

  app.openapi(estimateRun, (c) => {
    const { question, formats: _formats, ...rest } = c.req.valid("json");
    return c.json({ estimate: services().dossier.estimate(question, rest) }, 200);
  });

  return app;
}
