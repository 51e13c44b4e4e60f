/**
 * The rollout service as a Hono app, built from `dossier serve`'s pieces: the access log, the
 * Host/Origin guard (DNS-rebinding protection), one body limit in front of every route, the
 * bearer token on `/v1/*` (the same token file as `serve`), UTF-8 JSON bodies, JSON errors,
 * `/health`, and the OpenAPI 3.1 document at `/openapi.json` made from the routes' own
 * definitions.
 */

import type { OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import pkg from "../../../package.json" with { type: "json" };
import { type AccessLogSink, accessLog } from "../../server/access-log.ts";
import { requireToken } from "../../server/auth.ts";
import { bodySizeLimit, utf8JsonBodies } from "../../server/body.ts";
import { errorBody, errorResponse } from "../../server/errors.ts";
import { type HostPolicy, hostGuard } from "../../server/host-guard.ts";
import { createRouter } from "../../server/route-kit.ts";
import { serverRoutes } from "../../server/server-routes.ts";
import type { RolloutService } from "./rollout-service.ts";
import { type RolloutRouteServices, rolloutRoutes } from "./routes.ts";

/** Default body limit: rows may carry reference reports and rubrics. */
export const DEFAULT_ROLLOUT_MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Options of {@link createRolloutApp}. */
export interface RolloutAppOptions {
  service: RolloutService;
  /** The bearer token every request but `/health` and `/openapi.json` must carry; null turns auth off. */
  token: string | null;
  /** Largest request body in bytes (default 16 MiB). */
  maxBodyBytes?: number;
  /** Which `Host` and `Origin` values name this server, asked on each request; absent lets all through. */
  hostPolicy?: () => HostPolicy | null;
  accessLog?: AccessLogSink | null;
  /** Keep-alive interval of event streams (ms, default 15 000). */
  keepAliveMs?: number;
}

type Document = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;

const DESCRIPTION =
  "Group rollouts for on-policy RL: a trainer posts question rows with its policy endpoint, the group size, the reward and the policy version; the service runs G recorded research rollouts of every row with that policy, scores each group (reward, its components, GRPO or RLOO advantages) and streams its progress as Server-Sent Events. Every request but /health and /openapi.json carries `Authorization: Bearer <token>` (the server-token file of the data directory). Requests must name the server in `Host`; others are answered 403. Errors are answered as `{ error: { code, message } }`.";

/** The OpenAPI document of `api` (built by {@link rolloutApi}). */
export function rolloutApiDocument(api: OpenAPIHono, version: string): Document {
  const license = { name: pkg.license, identifier: pkg.license };
  return api.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Dossier rollout service",
      version,
      description: DESCRIPTION,
      license,
    },
    servers: [{ url: "/", description: "the server this document is served by" }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "rollouts", description: "Batches of group rollouts, their progress and their results" },
      { name: "server", description: "Liveness and this document" },
    ],
  });
}

/** The service's routes: `/health`, `/openapi.json` and `/v1/rollouts…`. */
export function rolloutApi(services: () => RolloutRouteServices): OpenAPIHono {
  const api = createRouter();
  api.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", { type: "http", scheme: "bearer" });
  let document: Document | undefined;
  api.route(
    "/",
    serverRoutes({
      version: pkg.version,
      openApi: () => (document ??= rolloutApiDocument(api, pkg.version)),
    }),
  );
  api.route("/v1", rolloutRoutes(services));
  return api;
}

/** The OpenAPI document of the rollout service, without a service (no handler runs). */
export function rolloutOpenApiDocument(): Record<string, unknown> {
  const api = rolloutApi(() => {
    throw new Error("these routes were built for their OpenAPI document only");
  });
  return { ...rolloutApiDocument(api, pkg.version) };
}

/** Builds the app. */
export function createRolloutApp(options: RolloutAppOptions): Hono {
  const services: RolloutRouteServices = {
    service: options.service,
    ...(options.keepAliveMs ? { keepAliveMs: options.keepAliveMs } : {}),
  };
  const app = new Hono();
  app.onError((error, c) => errorResponse(c, error));
  app.notFound((c) => c.json(errorBody("NOT_FOUND", `no route ${c.req.method} ${c.req.path}`), 404));
  if (options.accessLog) app.use("*", accessLog(options.accessLog));
  if (options.hostPolicy) app.use("*", hostGuard(options.hostPolicy));
  app.use("*", bodySizeLimit(options.maxBodyBytes ?? DEFAULT_ROLLOUT_MAX_BODY_BYTES));
  if (options.token !== null) app.use("/v1/*", requireToken(options.token));
  app.use("*", utf8JsonBodies);
  app.route(
    "/",
    rolloutApi(() => services),
  );
  return app;
}
