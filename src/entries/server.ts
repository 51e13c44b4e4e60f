/**
 * `dossier/server`: the HTTP API as a library — the Hono app (`createServerApp`, to mount in
 * your own server), `startServer` (listen with token auth, the web UI and MCP at `/mcp`), the
 * OpenAPI document and the run manager. Its dependencies (Hono, the MCP SDK) load with this
 * entry point, not with `dossier`.
 */

// First: an unsupported Node is refused with a clear message, not a module resolution error.
import "../core/node-check.ts";

export * from "../server/index.ts";
export { createRunManager, type RunManager } from "../server/run-manager.ts";
