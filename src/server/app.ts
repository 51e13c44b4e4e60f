/**
 * The HTTP server as a Hono app: the access log, Host/Origin checks (DNS-rebinding protection),
 * token auth (or the web UI's session cookie), body size limit, JSON errors, the API's routes
 * (`api.ts`: runs, tools and catalog under `/v1`, MCP at `/mcp`, the OpenAPI document at
 * `/openapi.json`) and the web UI.
 */

import { Hono } from "hono";
import pkg from "../../package.json" with { type: "json" };
import type { QueuedResearch } from "../queue/queued-research.ts";
import type { Dossier } from "../runtime/dossier.ts";
import { type AccessLogSink, accessLog } from "./access-log.ts";
import { apiRoutes } from "./api.ts";
import type { ApiServices } from "./api-services.ts";
import { requireToken } from "./auth.ts";
import { bodySizeLimit, utf8JsonBodies } from "./body.ts";
import { errorBody, errorResponse } from "./errors.ts";
import { type HostPolicy, hostGuard } from "./host-guard.ts";
import { type McpRoute, mcpRoute } from "./mcp-route.ts";
import { createRunManager, type RunManager } from "./run-manager.ts";
import { mountWeb, webSession } from "./web.ts";

/** Options of {@link createServerApp}. */
export interface ServerAppOptions {
  dossier: Dossier;
  /** The bearer token every request but `/health` and `/openapi.json` must carry; null turns auth off. */
  token: string | null;
  /** Runs (and asks) under way at once; more are answered 429 (default 2). */
  maxRuns?: number;
  /** Largest request body in bytes; larger ones are answered 413 (default 256 KiB). */
  maxBodyBytes?: number;
  /** Serve MCP over streamable HTTP at `/mcp` (default true). */
  mcp?: boolean;
  /** Environment variables (search endpoint overrides). */
  env?: Record<string, string | undefined>;
  /** Keep-alive interval of event streams (ms, default 15 000). */
  keepAliveMs?: number;
  /** The folder of the built web UI (default: `dist/web` of the package). */
  webRoot?: string;
  /** Research through the run queue: runs are enqueued for `dossier worker` processes. */
  queued?: QueuedResearch;
  /**
   * Which `Host` and `Origin` values name this server, asked on each request (others are
   * answered 403); absent or null lets every request through. `startServer` always sets it.
   */
  hostPolicy?: () => HostPolicy | null;
  /** Where to write one JSON line per request (absent: no access log). */
  accessLog?: AccessLogSink | null;
  /** Progress heartbeat of MCP tool calls while a run reports nothing else (ms, default 15 000). */
  mcpHeartbeatMs?: number;
}

/** The app and what it keeps running. */
export interface ServerApp {
  app: Hono;
  runs: RunManager;
  mcp: McpRoute | null;
  /** Cancels the runs this server started (recorded, resumable) and closes MCP sessions. */
  close(reason?: string): Promise<void>;
}

/** Default body limit. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;
/** Default number of runs at once. */
export const DEFAULT_MAX_RUNS = 2;

/** Builds the app. */
export function createServerApp(options: ServerAppOptions): ServerApp {
  const { dossier } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const runs = createRunManager({
    dossier,
    maxRuns: options.maxRuns ?? DEFAULT_MAX_RUNS,
    ...(options.queued ? { queued: options.queued } : {}),
  });
  const services: ApiServices = {
    dossier,
    runs,
    env: options.env ?? {},
    ...(options.keepAliveMs ? { keepAliveMs: options.keepAliveMs } : {}),
  };
  const mcp =
    options.mcp === false
      ? null
      : mcpRoute(
          () => services,
          options.mcpHeartbeatMs !== undefined ? { heartbeatMs: options.mcpHeartbeatMs } : {},
        );
  const app = new Hono();

  app.onError((error, c) => errorResponse(c, error));
  app.notFound((c) => c.json(errorBody("NOT_FOUND", `no route ${c.req.method} ${c.req.path}`), 404));

  // Every request is logged, refused ones included; then one Host/Origin rule for every route.
  if (options.accessLog) app.use("*", accessLog(options.accessLog));
  const policy = options.hostPolicy;
  if (policy) app.use("*", hostGuard(policy));

  // One body limit in front of every route, with a token or without (sign-in, the UI's
  // routes): a body is refused as soon as it passes the limit, Content-Length or not.
  app.use("*", bodySizeLimit(maxBodyBytes));
  if (options.token !== null) {
    // The UI's session cookie stands in for the token on /v1; then the token is checked.
    app.use("/v1/*", webSession(options.token));
    app.use("/v1/*", requireToken(options.token));
    app.use("/mcp", requireToken(options.token));
    app.use("/mcp/*", requireToken(options.token));
  }
  app.use("*", utf8JsonBodies);
  app.route(
    "/",
    apiRoutes(() => services, { version: pkg.version, mcp }),
  );
  mountWeb(app, { token: options.token, ...(options.webRoot ? { root: options.webRoot } : {}) });

  return {
    app,
    runs,
    mcp,
    async close(reason = "the server is shutting down") {
      await Promise.all([runs.cancelAll(reason), mcp?.close()]);
    },
  };
}
