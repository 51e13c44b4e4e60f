/**
 * Starting the rollout service's HTTP server on Node, as `dossier serve` starts its own: on
 * loopback unless told otherwise (port 0 picks a free port), with the token kept under the data
 * directory (the same file as `serve`'s, generated on the first start), answering only to its
 * own address and the allowed host names. `close()` stops accepting, cancels the batches under
 * way (their runs stay resumable) and closes the remaining connections.
 */

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { loadOrCreateToken } from "../../server/auth.ts";
import { type HostPolicy, hostPolicy, parseAllowedHost } from "../../server/host-guard.ts";
import { createRolloutApp, type RolloutAppOptions } from "./app.ts";

/** Default port of `dossier train serve` (`serve` has 8787). */
export const DEFAULT_ROLLOUT_PORT = 8788;

/** Options of {@link startRolloutServer}. */
export interface StartRolloutServerOptions extends Omit<RolloutAppOptions, "token" | "hostPolicy"> {
  /** The data directory the token is kept in (when `token` is absent). */
  home: string;
  host?: string;
  port?: number;
  /** A token, null to turn auth off, or absent to use (or make) the one kept under `home`. */
  token?: string | null;
  /** More names the server answers to (`name` or `name:port`). */
  allowedHosts?: readonly string[];
  /** How long open connections (event streams) may take to finish on close (ms, default 2000). */
  shutdownGraceMs?: number;
}

/** A listening rollout service. */
export interface RunningRolloutServer {
  url: string;
  port: number;
  token: string | null;
  tokenCreated: boolean;
  tokenPath: string | null;
  /** Stops accepting, cancels the batches under way, closes connections. Idempotent. */
  close(reason?: string): Promise<void>;
}

/** Starts the server and resolves once it listens. */
export async function startRolloutServer(options: StartRolloutServerOptions): Promise<RunningRolloutServer> {
  const host = options.host ?? "127.0.0.1";
  let token: string | null;
  let tokenCreated = false;
  let tokenPath: string | null = null;
  if (options.token === undefined) {
    const kept = loadOrCreateToken(options.home);
    token = kept.token;
    tokenCreated = kept.created;
    tokenPath = kept.path;
  } else token = options.token;

  const allowedHosts = (options.allowedHosts ?? []).map(parseAllowedHost);
  let policy: HostPolicy = hostPolicy({ host, port: 0, interfaceAddresses: () => [] });
  const app = createRolloutApp({ ...options, token, hostPolicy: () => policy });
  const server = serve({
    fetch: app.fetch,
    port: options.port ?? DEFAULT_ROLLOUT_PORT,
    hostname: host,
  }) as Server;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.once("listening", () => {
      server.off("error", onError);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  policy = hostPolicy({ host, port, allowedHosts });
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  let closing: Promise<void> | null = null;
  const close = (reason?: string) => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await options.service.close(reason);
      // Event streams end with their batch's batch-end, just appended: give them a moment.
      const grace = setTimeout(() => server.closeAllConnections(), options.shutdownGraceMs ?? 2000);
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      await stopped;
      clearTimeout(grace);
      clearInterval(idle);
    })();
    return closing;
  };
  return { url, port, token, tokenCreated, tokenPath, close };
}
