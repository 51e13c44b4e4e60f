/**
 * The web UI's side of the server: the built single-page app as static files at `/` under a
 * strict Content-Security-Policy, browser sign-in (the token typed once, or a one-time link
 * printed by `dossier serve`) that sets an HttpOnly SameSite=Strict session cookie, the cookie
 * accepted in place of the bearer token on `/v1` (state-changing requests must also carry the
 * `X-Dossier-Client` header and a same-origin `Origin`), and the lists the new-research form
 * reads: strategies, corpora and the pre-run estimate.
 */

import { createHmac, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Context, Hono } from "hono";
import type { z } from "zod";
import type { Dossier } from "../runtime/dossier.ts";
import { bearerToken, tokensMatch } from "./auth.ts";
import { readBody } from "./body.ts";
import { errorBody } from "./errors.ts";
import {
  type corpusListResponseSchema,
  createRunBodySchema,
  type estimateResponseSchema,
  type strategyListResponseSchema,
} from "./schemas.ts";
import { strategyOptions } from "./strategy-options.ts";

/** The session cookie's name. */
export const SESSION_COOKIE = "dossier_session";
/** The header a browser's state-changing request must carry when it signs in with the cookie. */
export const CLIENT_HEADER = "x-dossier-client";
/** The Content-Security-Policy of the UI's pages. */
export const WEB_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "connect-src 'self'; frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
  "frame-ancestors 'none'";

const LINK_TTL_MS = 15 * 60_000;
const SESSION_MAX_AGE_S = 7 * 24 * 3600;
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
};
const API = /^\/(v1|mcp|health|openapi\.json)(\/|$)/;

/** Options of {@link mountWeb}. */
export interface WebOptions {
  dossier: Dossier;
  /** The server's token; null when auth is off. */
  token: string | null;
  /** The folder of the built UI (default: `dist/web` of the package). */
  root?: string;
}

const links = new WeakMap<Hono, Map<string, number>>();

/** The session cookie's value for `token` (changes when the token does). */
export function sessionValue(token: string): string {
  return createHmac("sha256", token).update("dossier web session v1").digest("base64url");
}

function cookieOf(c: Context, name: string): string | null {
  const header = c.req.header("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return null;
}

function sameOrigin(c: Context): boolean {
  const origin = c.req.header("origin");
  if (!origin) return true;
  const host = c.req.header("host");
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}

function setSession(c: Context, token: string): void {
  c.header(
    "Set-Cookie",
    `${SESSION_COOKIE}=${sessionValue(token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MAX_AGE_S}`,
  );
}

/** The folder of the built UI: `dist/web` next to the sources or the compiled files. */
export function defaultWebRoot(): string | null {
  for (const rel of ["../web/", "../../dist/web/"]) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, "index.html"))) return dir;
  }
  return null;
}

/**
 * A one-time sign-in link for the UI of `app` (valid for 15 minutes): opening it sets the
 * session cookie and redirects to `/`. Null when the app has no UI mounted or auth is off.
 */
export function signInLink(app: Hono, baseUrl: string): string | null {
  const codes = links.get(app);
  if (!codes) return null;
  const code = randomBytes(24).toString("base64url");
  codes.set(code, Date.now() + LINK_TTL_MS);
  return `${baseUrl}/auth/link/${code}`;
}

/** Mounts the UI, its sign-in and its lists on `app`; call it before the token middleware. */
export function mountWeb(app: Hono, options: WebOptions): void {
  const { dossier, token } = options;
  const codes = new Map<string, number>();
  if (token !== null) links.set(app, codes);
  const root = options.root ?? defaultWebRoot();
  const signedIn = (c: Context) => {
    if (token === null) return true;
    const bearer = bearerToken(c.req.header("authorization"));
    if (bearer !== null) return tokensMatch(bearer, token);
    const cookie = cookieOf(c, SESSION_COOKIE);
    return cookie !== null && tokensMatch(cookie, sessionValue(token));
  };
  const unauthorized = (c: Context) => c.json(errorBody("UNAUTHORIZED", "sign in first"), 401);

  // The session cookie stands in for the bearer token; unsafe methods must prove they come
  // from the UI (a custom header cannot be sent cross-site without CORS, which is off).
  app.use("*", async (c, next) => {
    if (token !== null && (c.req.path.startsWith("/v1/") || c.req.path === "/v1")) {
      const cookie = cookieOf(c, SESSION_COOKIE);
      if (!c.req.header("authorization") && cookie !== null && tokensMatch(cookie, sessionValue(token))) {
        const safe = c.req.method === "GET" || c.req.method === "HEAD" || c.req.method === "OPTIONS";
        if (!safe && (c.req.header(CLIENT_HEADER) !== "web" || !sameOrigin(c))) {
          return c.json(
            errorBody(
              "FORBIDDEN",
              `a cookie-signed request must send ${CLIENT_HEADER}: web from the same origin`,
            ),
            403,
          );
        }
        c.req.raw.headers.set("authorization", `Bearer ${token}`);
      }
    }
    await next();
  });

  app.get("/auth/status", (c) => {
    c.header("Cache-Control", "no-store");
    return c.json({ authRequired: token !== null, signedIn: signedIn(c) });
  });
  app.post("/auth/session", async (c) => {
    if (c.req.header(CLIENT_HEADER) !== "web" || !sameOrigin(c)) {
      return c.json(errorBody("FORBIDDEN", `send ${CLIENT_HEADER}: web from the same origin`), 403);
    }
    if (token === null) return c.json({ signedIn: true });
    const body = (await c.req.json().catch(() => null)) as { token?: unknown } | null;
    const given = typeof body?.token === "string" ? body.token.trim() : "";
    // A wrong token is an answer, not an HTTP error (the sign-in page shows it).
    if (!given || !tokensMatch(given, token)) return c.json({ signedIn: false, error: "invalid token" });
    setSession(c, token);
    return c.json({ signedIn: true });
  });
  app.post("/auth/signout", (c) => {
    if (c.req.header(CLIENT_HEADER) !== "web" || !sameOrigin(c)) {
      return c.json(errorBody("FORBIDDEN", `send ${CLIENT_HEADER}: web from the same origin`), 403);
    }
    c.header("Set-Cookie", `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`);
    return c.json({ signedIn: false });
  });
  app.get("/auth/link/:code", (c) => {
    const code = c.req.param("code");
    const expires = codes.get(code);
    codes.delete(code);
    c.header("Cache-Control", "no-store");
    c.header("Referrer-Policy", "no-referrer");
    if (token !== null && expires !== undefined && expires > Date.now()) {
      setSession(c, token);
      return c.redirect("/", 303);
    }
    return c.redirect("/?signin=expired", 303);
  });

  // Lists the new-research form reads (behind the same auth as the rest of /v1).
  app.get("/v1/strategies", (c) => {
    if (!signedIn(c)) return unauthorized(c);
    const body: z.output<typeof strategyListResponseSchema> = {
      strategies: dossier.strategies.list().map((s) => ({
        name: s.name,
        description: s.description,
        capabilities: s.capabilities,
        options: strategyOptions(s.optionsSchema),
      })),
    };
    return c.json(body);
  });
  app.get("/v1/corpora", (c) => {
    if (!signedIn(c)) return unauthorized(c);
    const dir = join(dossier.home, "corpus");
    const names = existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith(".db"))
          .map((f) => f.slice(0, -3))
          .sort()
      : [];
    const body: z.output<typeof corpusListResponseSchema> = { corpora: names };
    return c.json(body);
  });
  app.post("/v1/estimate", async (c) => {
    if (!signedIn(c)) return unauthorized(c);
    const { question, formats: _f, ...rest } = await readBody(c, createRunBodySchema);
    const body: z.output<typeof estimateResponseSchema> = { estimate: dossier.estimate(question, rest) };
    return c.json(body);
  });

  app.on(["GET", "HEAD"], "*", async (c, next) => {
    if (API.test(c.req.path) || c.req.path.startsWith("/auth/")) return next();
    c.header("Content-Security-Policy", WEB_CSP);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("X-Frame-Options", "DENY");
    if (!root) {
      return c.text("The web UI is not built: run `npm run build` in the Dossier package.\n", 503);
    }
    let rel: string;
    try {
      rel = normalize(decodeURIComponent(c.req.path)).replace(/^([/\\])+/, "");
    } catch {
      return c.text("bad path\n", 400);
    }
    let file = join(root, rel);
    if (!file.startsWith(root.endsWith(sep) ? root : root + sep) && file !== root) {
      return c.text("not found\n", 404);
    }
    const isFile = existsSync(file) && statSync(file).isFile();
    if (!isFile) {
      if (extname(rel) !== "") return c.text("not found\n", 404);
      file = join(root, "index.html");
    }
    const ext = extname(file);
    c.header("Content-Type", TYPES[ext] ?? "application/octet-stream");
    c.header(
      "Cache-Control",
      rel.startsWith(`assets${sep}`) || rel.startsWith("assets/")
        ? "public, max-age=31536000, immutable"
        : "no-cache",
    );
    return c.body(readFileSync(file), 200);
  });
}
