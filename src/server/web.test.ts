import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createServerApp } from "./app.ts";
import { type RunningServer, startServer } from "./listen.ts";
import { createProject, type Project } from "./test-fixtures.ts";
import { SESSION_COOKIE, sessionValue, signInLink, WEB_CSP } from "./web.ts";

let project: Project;
let server: RunningServer;
let root: string | undefined;
let closeApp: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeApp?.();
  closeApp = undefined;
  await server?.close();
  await project?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

async function start() {
  project = await createProject();
  server = await startServer({ dossier: project.dossier, port: 0, token: "t".repeat(32) });
  return server;
}

describe("web UI serving and sign-in", () => {
  it("serves the app under a strict CSP and never data to a signed-out browser", async () => {
    project = await createProject();
    root = mkdtempSync(join(tmpdir(), "dossier-web-"));
    mkdirSync(join(root, "assets"));
    writeFileSync(join(root, "index.html"), "<!doctype html><title>Dossier</title>");
    writeFileSync(join(root, "assets", "app.js"), "export {};");
    const { app, close } = createServerApp({
      dossier: project.dossier,
      token: "secret-token-0123456789",
      webRoot: root,
    });
    closeApp = close;
    const index = await app.request("/");
    expect(index.status).toBe(200);
    expect(index.headers.get("content-security-policy")).toBe(WEB_CSP);
    expect(WEB_CSP).toContain("script-src 'self'");
    expect(WEB_CSP).toContain("connect-src 'self'");
    expect(WEB_CSP).not.toContain("unsafe-inline");
    expect(await index.text()).toContain("<title>Dossier</title>");
    // Client-side routes get the app; missing files with an extension do not.
    expect((await app.request("/runs/abc")).status).toBe(200);
    expect((await app.request("/nope.js")).status).toBe(404);
    expect((await app.request("/..%2f..%2fetc%2fpasswd.txt")).status).toBe(404);
    const js = await app.request("/assets/app.js");
    expect(js.headers.get("content-type")).toContain("javascript");
    expect(js.headers.get("cache-control")).toContain("immutable");
    // Signed out: the status says so and the lists answer 401.
    expect(await (await app.request("/auth/status")).json()).toEqual({ authRequired: true, signedIn: false });
    expect((await app.request("/v1/strategies")).status).toBe(401);
  });

  it("signs in with the token or a one-time link; the cookie is HttpOnly, SameSite=Strict and CSRF-checked", async () => {
    await start();
    const token = server.token!;
    const wrong = await fetch(`${server.url}/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-dossier-client": "web" },
      body: JSON.stringify({ token: "wrong" }),
    });
    expect(wrong.status).toBe(200);
    expect(await wrong.json()).toEqual({ signedIn: false, error: "invalid token" });
    expect(wrong.headers.get("set-cookie")).toBeNull();
    const noHeader = await fetch(`${server.url}/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
    });
    expect(noHeader.status).toBe(403);
    const ok = await fetch(`${server.url}/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-dossier-client": "web" },
      body: JSON.stringify({ token }),
    });
    expect(ok.status).toBe(200);
    const setCookie = ok.headers.get("set-cookie")!;
    expect(setCookie).toContain(`${SESSION_COOKIE}=${sessionValue(token)}`);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).not.toContain(token);
    const cookie = `${SESSION_COOKIE}=${sessionValue(token)}`;

    // The cookie reads data; a state-changing request also needs the header and the same origin.
    const list = await fetch(`${server.url}/v1/runs`, { headers: { cookie } });
    expect(list.status).toBe(200);
    const strategies = (await (
      await fetch(`${server.url}/v1/strategies`, { headers: { cookie } })
    ).json()) as {
      strategies: { name: string; description: string }[];
    };
    expect(strategies.strategies.map((s) => s.name)).toContain("offline");
    const corpora = await (await fetch(`${server.url}/v1/corpora`, { headers: { cookie } })).json();
    expect(corpora).toEqual({ corpora: ["notes"] });
    const body = JSON.stringify({
      question: "How do heat pumps cope with cold?",
      strategy: "hold",
      corpus: "notes",
    });
    const forged = await fetch(`${server.url}/v1/runs`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body,
    });
    expect(forged.status).toBe(403);
    const crossSite = await fetch(`${server.url}/v1/runs`, {
      method: "POST",
      headers: {
        cookie,
        "content-type": "application/json",
        "x-dossier-client": "web",
        origin: "https://evil.example",
      },
      body,
    });
    expect(crossSite.status).toBe(403);
    const estimate = await fetch(`${server.url}/v1/estimate`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", "x-dossier-client": "web" },
      body,
    });
    expect(estimate.status).toBe(200);
    expect(await estimate.json()).toMatchObject({ estimate: { strategy: "hold" } });

    // The one-time link: sets the cookie, redirects to a URL without the code, works once.
    const link = signInLink(server.app.app, server.url)!;
    expect(link).not.toContain(token);
    const first = await fetch(link, { redirect: "manual" });
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/");
    expect(first.headers.get("set-cookie")).toContain(sessionValue(token));
    const again = await fetch(link, { redirect: "manual" });
    expect(again.headers.get("location")).toBe("/?signin=expired");
    expect(again.headers.get("set-cookie")).toBeNull();
    const status = await (await fetch(`${server.url}/auth/status`, { headers: { cookie } })).json();
    expect(status).toEqual({ authRequired: true, signedIn: true });
    // A wrong cookie is no session.
    const bad = await fetch(`${server.url}/v1/runs`, { headers: { cookie: `${SESSION_COOKIE}=x` } });
    expect(bad.status).toBe(401);
  });
});
