/**
 * DNS-rebinding protection for everything the server answers (the API, the web UI, `/mcp`): a
 * request must name this server in its `Host` header, and a request that carries an `Origin`
 * must come from one of this server's origins. Allowed are the bound address with its port, for
 * a loopback bind also `localhost`, `127.0.0.1` and `[::1]` with the port, for a wildcard bind
 * (`0.0.0.0`, `::`) those and every address of this machine's interfaces with the port, and the
 * names given with `--allowed-host` (`name` on any port, or `name:port`). Anything else is
 * answered 403 before any route runs. A page on another site that resolves its own name to
 * 127.0.0.1 sends its own name as `Host` and its own origin, so it reaches nothing.
 *
 * The MCP SDK's transport has its own `allowedHosts`/`allowedOrigins` options (deprecated in
 * favour of middleware like this, and exact-match on `Host` only); one rule here covers every
 * route alike.
 */

import { networkInterfaces } from "node:os";
import type { MiddlewareHandler } from "hono";
import { DossierError } from "../core/errors.ts";
import { errorBody } from "./errors.ts";

/** Options of {@link hostPolicy}. */
export interface HostPolicyOptions {
  /** The address the server is bound to, as given to listen (`127.0.0.1`, `::1`, `0.0.0.0`…). */
  host: string;
  /** The port it listens on. */
  port: number;
  /** More names the server answers to: `name` (any port) or `name:port`. */
  allowedHosts?: readonly string[];
  /** The machine's interface addresses (default: `os.networkInterfaces()`), for wildcard binds. */
  interfaceAddresses?: () => string[];
}

/** Which `Host` and `Origin` values name this server. */
export interface HostPolicy {
  /** True when a `Host` header value names this server (absent: false). */
  allowsHost(host: string | undefined): boolean;
  /** True when an `Origin` header value is one of this server's origins (`null` is not). */
  allowsOrigin(origin: string): boolean;
  /** The allowed authorities, for messages (`localhost:8787, 127.0.0.1:8787, …`). */
  readonly allowed: readonly string[];
}

interface Authority {
  hostname: string;
  /** The port, or null for any port. */
  port: string | null;
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
const WILDCARD = new Set(["0.0.0.0", "[::]", "::"]);

/**
 * Reads `hostname[:port]` as a URL's authority would (lower case, IPv6 in brackets), refusing
 * anything else (user info, paths, spaces). Null when it is not one.
 */
export function parseAuthority(value: string): { hostname: string; port: string } | null {
  if (value.length === 0 || value.length > 300 || /[\s/\\@?#]/.test(value)) return null;
  try {
    const url = new URL(`http://${value}`);
    if (url.hostname === "") return null;
    return { hostname: url.hostname, port: url.port };
  } catch {
    return null;
  }
}

/**
 * Checks one `--allowed-host` value (`name` or `name:port`); INPUT_INVALID when it is neither.
 * Returns it as the policy reads it.
 */
export function parseAllowedHost(value: string): string {
  const parsed = allowedAuthority(value);
  return parsed.port ? `${parsed.hostname}:${parsed.port}` : parsed.hostname;
}

/** One `--allowed-host` value as a host name and port ("" for any port); INPUT_INVALID when it is not one. */
function allowedAuthority(value: string): { hostname: string; port: string } {
  const parsed = parseAuthority(value.trim());
  if (!parsed || parsed.hostname.endsWith(".")) {
    throw new DossierError(
      "INPUT_INVALID",
      `--allowed-host expects a host name, optionally with a port (dossier.example.com, box.lan:8787), got "${value.slice(0, 100)}"`,
    );
  }
  return parsed;
}

const isLoopback = (hostname: string) =>
  hostname === "localhost" || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname);

function machineAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((info) => info.address);
}

/** The policy of a server bound to `host:port`. */
export function hostPolicy(options: HostPolicyOptions): HostPolicy {
  const port = String(options.port);
  const entries: Authority[] = [];
  const add = (hostname: string, p: string | null) => {
    if (!entries.some((e) => e.hostname === hostname && e.port === p)) entries.push({ hostname, port: p });
  };
  const bound = parseAuthority(options.host.includes(":") ? `[${options.host}]` : options.host);
  const boundName = bound?.hostname ?? options.host;
  if (WILDCARD.has(boundName) || WILDCARD.has(options.host)) {
    for (const name of LOOPBACK_NAMES) add(name, port);
    for (const withZone of (options.interfaceAddresses ?? machineAddresses)()) {
      const address = withZone.replace(/%.*$/, "");
      const parsed = parseAuthority(address.includes(":") ? `[${address}]` : address);
      if (parsed) add(parsed.hostname, port);
    }
  } else {
    add(boundName, port);
    if (isLoopback(boundName)) for (const name of LOOPBACK_NAMES) add(name, port);
  }
  for (const value of options.allowedHosts ?? []) {
    const parsed = allowedAuthority(value);
    add(parsed.hostname, parsed.port || null);
  }
  const matches = (hostname: string, p: string) =>
    entries.some((e) => e.hostname === hostname && (e.port === null || e.port === p));
  return {
    allowed: entries.map((e) => (e.port === null ? e.hostname : `${e.hostname}:${e.port}`)),
    allowsHost(host) {
      if (host === undefined) return false;
      const parsed = parseAuthority(host);
      return parsed !== null && matches(parsed.hostname, parsed.port || "80");
    },
    allowsOrigin(origin) {
      let url: URL;
      try {
        url = new URL(origin);
      } catch {
        return false;
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") return false;
      if (url.origin !== origin.replace(/\/$/, "")) return false;
      return matches(url.hostname, url.port || (url.protocol === "https:" ? "443" : "80"));
    },
  };
}

const shown = (value: string) => JSON.stringify(value.slice(0, 100));

/**
 * Middleware that answers 403 (`FORBIDDEN`) to a request whose `Host` does not name this server
 * or whose `Origin` is not one of its origins. `policy` is asked on each request (the port is
 * known once the server listens); null lets every request through (an app not served by
 * `startServer`, as in tests that call `app.request`).
 */
export function hostGuard(policy: () => HostPolicy | null): MiddlewareHandler {
  return async (c, next) => {
    const rule = policy();
    if (rule === null) return next();
    const host = c.req.header("host");
    if (!rule.allowsHost(host)) {
      return c.json(
        errorBody(
          "FORBIDDEN",
          `this server does not answer to the host ${host === undefined ? "(none)" : shown(host)}: it answers to ${rule.allowed.join(", ")}; start it with --allowed-host <name> to add a name`,
        ),
        403,
      );
    }
    const origin = c.req.header("origin");
    if (origin !== undefined && !rule.allowsOrigin(origin)) {
      return c.json(
        errorBody(
          "FORBIDDEN",
          `requests from the origin ${shown(origin)} are refused: only this server's own pages (${rule.allowed.join(", ")}) may call it from a browser`,
        ),
        403,
      );
    }
    await next();
  };
}
