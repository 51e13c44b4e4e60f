/**
 * DNS-rebinding protection on a real loopback server: a foreign `Host` or `Origin` is answered
 * 403 in the API's error shape by the API, the web UI and `/mcp` alike; the server's own names
 * and the allowed host names pass. The policy and the middleware alone: `host-policy.test.ts`.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "./listen.ts";
import { createProject, type Project } from "./test-fixtures.ts";

let project: Project | undefined;
let server: RunningServer | undefined;
let root: string | undefined;
afterEach(async () => {
  await server?.close();
  await project?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  server = project = root = undefined;
});

interface Target {
  name: string;
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});

const TARGETS: Target[] = [
  { name: "API", method: "GET", path: "/v1/runs" },
  { name: "UI", method: "GET", path: "/" },
  {
    name: "MCP",
    method: "POST",
    path: "/mcp",
    body: INITIALIZE,
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  },
];

/** One request with exactly these Host and Origin headers (fetch would not send a foreign Host). */
function send(
  port: number,
  target: Target,
  headers: { host: string; origin?: string; authorization?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: target.method,
        path: target.path,
        headers: { ...target.headers, ...headers },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          body += chunk;
          // An MCP answer may come as an event stream: its first event is all we need.
          if (res.headers["content-type"]?.includes("text/event-stream") && body.includes("\n\n")) {
            res.destroy();
            resolve({ status: res.statusCode ?? 0, body });
          }
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(target.body);
  });
}

async function startWithUi(options: { token?: string | null; allowedHosts?: string[] } = {}) {
  project = await createProject();
  root = mkdtempSync(join(tmpdir(), "dossier-web-"));
  writeFileSync(join(root, "index.html"), "<!doctype html><title>Dossier</title>");
  server = await startServer({
    dossier: project.dossier,
    port: 0,
    token: options.token === undefined ? null : options.token,
    webRoot: root,
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
  });
  return server;
}

const expectForbidden = (answer: { status: number; body: string }, what: string) => {
  expect(answer.status, what).toBe(403);
  expect(JSON.parse(answer.body), what).toMatchObject({ error: { code: "FORBIDDEN" } });
};

describe("Host and Origin checks on a loopback server", () => {
  it("answers 403 to a foreign Host or Origin on the API, the UI and /mcp; its own names pass", async () => {
    const { port } = await startWithUi();
    for (const target of TARGETS) {
      const what = (s: string) => `${target.name}: ${s}`;
      expectForbidden(await send(port, target, { host: "evil.example" }), what("Host evil.example"));
      expectForbidden(await send(port, target, { host: `evil.example:${port}` }), what("Host evil:port"));
      expectForbidden(
        await send(port, target, { host: `127.0.0.1:${port}`, origin: "http://evil.example" }),
        what("foreign Origin"),
      );
      expectForbidden(
        await send(port, target, { host: `localhost:${port}`, origin: `http://evil.example:${port}` }),
        what("foreign Origin on the same port"),
      );
      expectForbidden(
        await send(port, target, { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port + 1}` }),
        what("Origin of another local port"),
      );
      expectForbidden(await send(port, target, { host: `127.0.0.1:${port + 1}` }), what("another port"));
      expectForbidden(await send(port, target, { host: `127.0.0.1:${port}`, origin: "null" }), what("null"));
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
        const same = await send(port, target, { host, origin: `http://${host}` });
        expect(same.status, what(`${host} with its own origin`)).toBe(200);
        expect((await send(port, target, { host })).status, what(`${host} without Origin`)).toBe(200);
      }
    }
  });

  it("checks the host before the token, and answers to the names given as allowed hosts", async () => {
    const token = "t".repeat(32);
    const { port } = await startWithUi({ token, allowedHosts: ["dossier.example", "box.lan:81"] });
    const api = TARGETS[0]!;
    const authorization = `Bearer ${token}`;
    // A rebinding page cannot learn the token, but even with it the host is refused first.
    expectForbidden(await send(port, api, { host: "evil.example", authorization }), "evil with token");
    expect((await send(port, api, { host: "dossier.example", authorization })).status).toBe(200);
    expect((await send(port, api, { host: "dossier.example:443", authorization })).status).toBe(200);
    expect(
      (await send(port, api, { host: "dossier.example", origin: "https://dossier.example", authorization }))
        .status,
    ).toBe(200);
    // box.lan was allowed on port 81 only: any other port is refused.
    expectForbidden(await send(port, api, { host: `box.lan:${port}`, authorization }), "box.lan");
    expect((await send(port, api, { host: `localhost:${port}` })).status).toBe(401);
  });

  it("refuses a malformed allowed host before binding", async () => {
    project = await createProject();
    await expect(
      startServer({ dossier: project.dossier, port: 0, token: null, allowedHosts: ["http://x/"] }),
    ).rejects.toMatchObject({ code: "INPUT_INVALID" });
  });
});
