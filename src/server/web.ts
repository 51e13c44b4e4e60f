/**
 * The web UI's side of the server: the built single-page app as static files at `/` under a
 * strict Content-Security-Policy, and the browser sign-in of `web-session.ts`. The lists the
 * new-research form reads are API routes (`catalog-routes.ts`).
 */

import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hono } from "hono";
import { mountSignIn } from "./web-session.ts";

export { CLIENT_HEADER, SESSION_COOKIE, sessionValue, signInLink, webSession } from "./web-session.ts";

/** The Content-Security-Policy of the UI's pages. */
export const WEB_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "connect-src 'self'; frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
  "frame-ancestors 'none'";

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
  /** The server's token; null when auth is off. */
  token: string | null;
  /** The folder of the built UI (default: `dist/web` of the package). */
  root?: string;
}

/** The folder of the built UI: `dist/web` next to the sources or the compiled files. */
export function defaultWebRoot(): string | null {
  for (const rel of ["../web/", "../../dist/web/"]) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, "index.html"))) return dir;
  }
  return null;
}

/** Mounts the UI and its sign-in on `app`, after the API's routes. */
export function mountWeb(app: Hono, options: WebOptions): void {
  const root = options.root ?? defaultWebRoot();
  mountSignIn(app, options.token);

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
