/**
 * The HTTP server: research runs with SSE event streams, report downloads, ask, search and
 * fetch, MCP over streamable HTTP, token auth and an OpenAPI document.
 */

export {
  createServerApp,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_RUNS,
  type ServerApp,
  type ServerAppOptions,
} from "./app.ts";
export { loadOrCreateToken, type ServerToken, TOKEN_FILE, tokensMatch } from "./auth.ts";
export { ApiError, type ApiErrorCode } from "./errors.ts";
export { DEFAULT_PORT, type RunningServer, type StartServerOptions, startServer } from "./listen.ts";
export { openApiDocument } from "./openapi.ts";
export type { RunManager } from "./run-manager.ts";
