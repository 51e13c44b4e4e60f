/**
 * The routes that need no token: liveness and the API's own OpenAPI document.
 */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { createRouter, jsonResponse } from "./route-kit.ts";

const Health = z.object({ ok: z.literal(true), version: z.string() }).openapi("Health");

const health = createRoute({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  tags: ["server"],
  summary: "Liveness",
  security: [],
  responses: { 200: jsonResponse("the server is up", Health) },
});

const document = createRoute({
  method: "get",
  path: "/openapi.json",
  operationId: "getOpenApiDocument",
  tags: ["server"],
  summary: "This document",
  security: [],
  responses: {
    200: jsonResponse(
      "the OpenAPI 3.1 document of the API",
      z.object({ openapi: z.string() }).loose().openapi({ description: "an OpenAPI document" }),
    ),
  },
});

/** `/health` and `/openapi.json`; `openApi` gives the document. */
export function serverRoutes(options: { version: string; openApi: () => { openapi: string } }): OpenAPIHono {
  const app = createRouter();
  app.openapi(health, (c) => c.json({ ok: true as const, version: options.version }, 200));
  app.openapi(document, (c) => c.json(options.openApi(), 200));
  return app;
}
