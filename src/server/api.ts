/**
 * The HTTP API as one router: every documented route, each defined once with its request
 * schemas and answers (`createRoute` + `openapi()`), and the OpenAPI 3.1 document made from
 * those definitions. Authentication, body limits and the web UI are added by `app.ts`.
 */

import type { OpenAPIHono } from "@hono/zod-openapi";
import pkg from "../../package.json" with { type: "json" };
import type { ApiServices } from "./api-services.ts";
import { catalogRoutes } from "./catalog-routes.ts";
import { diffRoutes } from "./diff-routes.ts";
import type { McpRoute } from "./mcp-route.ts";
import { planRoutes } from "./plan-routes.ts";
import { refreshRoutes } from "./refresh-routes.ts";
import { createRouter } from "./route-kit.ts";
import { runOutputRoutes } from "./run-output-routes.ts";
import { runsRoutes } from "./runs-routes.ts";
import { serverRoutes } from "./server-routes.ts";
import { toolsRoutes } from "./tools-routes.ts";
import { workersRoutes } from "./workers-routes.ts";

/** The OpenAPI document's type (OpenAPI 3.1). */
export type OpenApiDocument = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;

const DESCRIPTION =
  "Research runs with a live audit trail (Server-Sent Events), cited reports in Markdown, HTML and JSON, short answers, web and paper search and page reading, and MCP over streamable HTTP. Every request but /health and /openapi.json carries `Authorization: Bearer <token>`; the token is in the server-token file of the server's data directory. Requests must name the server in `Host` (its address, or a name it was started with `--allowed-host`) and, from a browser, come from its own origin; others are answered 403 FORBIDDEN. Errors are answered as `{ error: { code, message } }`.";

const TAGS = [
  { name: "runs", description: "Research runs, their events and their reports" },
  { name: "tools", description: "Ask, search and fetch without a full run" },
  { name: "catalog", description: "What a new run can use, and its estimate" },
  { name: "mcp", description: "Model Context Protocol over streamable HTTP" },
  { name: "server", description: "Liveness and this document" },
];

/** The OpenAPI document of `api` (built by {@link apiRoutes}). */
export function apiDocument(api: OpenAPIHono, version: string): OpenApiDocument {
  const license = { name: pkg.license, identifier: pkg.license };
  return api.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Dossier API",
      version,
      description: DESCRIPTION,
      license,
    },
    // Relative to the document's own URL: the server that serves it.
    servers: [{ url: "/", description: "the server this document is served by" }],
    security: [{ bearerAuth: [] }],
    tags: TAGS,
  });
}

/**
 * Builds the API's routes. Handlers ask `services` for what they need when a request arrives;
 * `mcp` adds the `/mcp` routes.
 */
export function apiRoutes(
  services: () => ApiServices,
  options: { version: string; mcp: McpRoute | null },
): OpenAPIHono {
  const api = createRouter();
  api.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", { type: "http", scheme: "bearer" });
  let document: OpenApiDocument | undefined;
  api.route(
    "/",
    serverRoutes({
      version: options.version,
      openApi: () => (document ??= apiDocument(api, options.version)),
    }),
  );
  api.route("/v1", runsRoutes(services));
  api.route("/v1", runOutputRoutes(services));
  api.route("/v1", planRoutes(services));
  api.route("/v1", diffRoutes(services));
  api.route("/v1", refreshRoutes(services));
  api.route("/v1", toolsRoutes(services));
  api.route("/v1", catalogRoutes(services));
  api.route("/v1", workersRoutes(services));
  if (options.mcp) api.route("/mcp", options.mcp.app);
  return api;
}
