/**
 * The OpenAPI 3.1 document of the HTTP API without a running server: the same routes the
 * server mounts, built only for their definitions (no handler runs).
 */

import { apiDocument, apiRoutes } from "./api.ts";
import { mcpRoute } from "./mcp-route.ts";

const unavailable = (): never => {
  throw new Error("these routes were built for their OpenAPI document only");
};

/** The OpenAPI document the server serves at `/openapi.json`. */
export function openApiDocument(options: { version: string }): Record<string, unknown> {
  const api = apiRoutes(unavailable, { version: options.version, mcp: mcpRoute(unavailable) });
  return { ...apiDocument(api, options.version) };
}
