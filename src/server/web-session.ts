/**
 * Browser sign-in for the web UI: the token typed once, or a one-time link printed by
 * `dossier serve`, sets an HttpOnly SameSite=Strict session cookie; the cookie is accepted in
 * place of the bearer token on `/v1`, and state-changing requests signed by it must also carry
 * the `X-Dossier-Client` header and a same-origin `Origin`.
 */

import { createHmac, randomBytes } from "node:crypto";
import type { Context, Hono, MiddlewareHandler } from "hono";
import { bearerToken, tokensMatch } from "./auth.ts";
import { errorBody } from "./errors.ts";

/** The session cookie's name. */
export const SESSION_COOKIE = "dossier_session";
/** The header a browser's state-changing request must carry when it signs in with the cookie. */
export const CLIENT_HEADER = "x-dossier-client";

const LINK_TTL_MS = 15 * 60_000;
const SESSION_MAX_AGE_S = 7 * 24 * 3600;

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

/**
 * Middleware for `/v1`: a request signed by the session cookie gets the bearer token (unsafe
 * methods only with the client header from the same origin: a custom header cannot be sent
 * cross-site without CORS, which is off). Put it before the token check.
 */
export function webSession(token: string): MiddlewareHandler {
  return async (c, next) => {
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
    await next();
  };
}

/** The sign-in routes under `/auth` (status, session, sign-out, one-time link). */
export function mountSignIn(app: Hono, token: string | null): void {
  const codes = new Map<string, number>();
  if (token !== null) links.set(app, codes);
  const signedIn = (c: Context) => {
    if (token === null) return true;
    const bearer = bearerToken(c.req.header("authorization"));
    if (bearer !== null) return tokensMatch(bearer, token);
    const cookie = cookieOf(c, SESSION_COOKIE);
    return cookie !== null && tokensMatch(cookie, sessionValue(token));
  };
  const fromUi = (c: Context) => c.req.header(CLIENT_HEADER) === "web" && sameOrigin(c);

  app.get("/auth/status", (c) => {
    c.header("Cache-Control", "no-store");
    return c.json({ authRequired: token !== null, signedIn: signedIn(c) });
  });
  app.post("/auth/session", async (c) => {
    if (!fromUi(c))
      return c.json(errorBody("FORBIDDEN", `send ${CLIENT_HEADER}: web from the same origin`), 403);
    if (token === null) return c.json({ signedIn: true });
    const body = (await c.req.json().catch(() => null)) as { token?: unknown } | null;
    const given = typeof body?.token === "string" ? body.token.trim() : "";
    // A wrong token is an answer, not an HTTP error (the sign-in page shows it).
    if (!given || !tokensMatch(given, token)) return c.json({ signedIn: false, error: "invalid token" });
    setSession(c, token);
    return c.json({ signedIn: true });
  });
  app.post("/auth/signout", (c) => {
    if (!fromUi(c))
      return c.json(errorBody("FORBIDDEN", `send ${CLIENT_HEADER}: web from the same origin`), 403);
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
}
