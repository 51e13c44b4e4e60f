/**
 * The access log on a real loopback server: one JSON line per request with its id, method,
 * route, status and duration, and never a token, cookie, Authorization value, query string or
 * one-time sign-in code.
 */

import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type AccessLogEntry, type AccessLogSink, openAccessLog, REQUEST_ID_HEADER } from "./access-log.ts";
import { type RunningServer, startServer } from "./listen.ts";
import { createProject, type Project } from "./test-fixtures.ts";
import { SESSION_COOKIE, sessionValue, signInLink } from "./web.ts";

let project: Project | undefined;
let server: RunningServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  await project?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = project = dir = undefined;
});

function memorySink(): AccessLogSink & { lines: string[] } {
  const lines: string[] = [];
  return { lines, write: (line) => lines.push(line), close: async () => {} };
}

async function waitForLines(sink: { lines: string[] }, n: number): Promise<AccessLogEntry[]> {
  const until = Date.now() + 5000;
  while (sink.lines.length < n) {
    if (Date.now() > until) throw new Error(`expected ${n} log lines, got ${sink.lines.length}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return sink.lines.map((line) => JSON.parse(line) as AccessLogEntry);
}

describe("access log", () => {
  it("writes one line per request and never a token, cookie or query secret", async () => {
    const token = "tok-SECRET-0123456789abcdef";
    const sink = memorySink();
    project = await createProject();
    server = await startServer({ dossier: project.dossier, port: 0, token, accessLog: sink });
    const cookie = `${SESSION_COOKIE}=${sessionValue(token)}`;
    const withBoth = await fetch(`${server.url}/v1/runs?limit=5&apiKey=QUERY-SECRET`, {
      headers: { authorization: `Bearer ${token}`, cookie },
    });
    expect(withBoth.status).toBe(200);
    const link = signInLink(server.app.app, server.url)!;
    const code = link.split("/").at(-1)!;
    expect((await fetch(link, { redirect: "manual" })).status).toBe(303);
    const missing = await fetch(`${server.url}/v1/runs/nosuch-run`, { headers: { cookie } });
    expect(missing.status).toBe(404);
    expect((await fetch(`${server.url}/v1/runs`)).status).toBe(401);

    const entries = await waitForLines(sink, 4);
    const text = sink.lines.join("\n");
    for (const secret of [token, sessionValue(token), "QUERY-SECRET", "apiKey", code, "nosuch-run", "Bearer"])
      expect(text, secret).not.toContain(secret);
    expect(entries.map((e) => [e.method, e.route, e.status])).toEqual([
      ["GET", "/v1/runs", 200],
      ["GET", "/auth/link/:code", 303],
      ["GET", "/v1/runs/:id", 404],
      // Refused by the token check: the route that answered is the check's.
      ["GET", "/v1/*", 401],
    ]);
    for (const entry of entries) {
      expect(Object.keys(entry).sort()).toEqual([
        "durationMs",
        "id",
        "method",
        "route",
        "status",
        "ts",
        "type",
      ]);
      expect(entry.type).toBe("access");
      expect(entry.durationMs).toBeGreaterThanOrEqual(0);
      expect(entry.id).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(new Set(entries.map((e) => e.id)).size).toBe(4);
    expect(withBoth.headers.get(REQUEST_ID_HEADER)).toBe(entries[0]!.id);
  });

  it("logs refused hosts and an event stream when it closes, marking a client that left", async () => {
    const sink = memorySink();
    project = await createProject();
    server = await startServer({ dossier: project.dossier, port: 0, token: null, accessLog: sink });
    const created = await fetch(`${server.url}/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        question: "Hold this run until it is cancelled",
        strategy: "hold",
        corpus: "notes",
      }),
    });
    expect(created.status).toBe(201);
    const { id } = ((await created.json()) as { run: { id: string } }).run;
    const controller = new AbortController();
    const stream = await fetch(`${server.url}/v1/runs/${id}/events`, { signal: controller.signal });
    expect(stream.status).toBe(200);
    // The stream is open: only the create line is written so far.
    expect((await waitForLines(sink, 1)).map((e) => e.route)).toEqual(["/v1/runs"]);
    controller.abort();
    const [, events] = await waitForLines(sink, 2);
    expect(events).toMatchObject({ route: "/v1/runs/:id/events", status: 200, aborted: true });
    const refused = await fetch(`${server.url}/v1/runs/${id}/cancel`, {
      method: "POST",
      headers: { origin: "http://evil.example" },
    });
    expect(refused.status).toBe(403);
    expect((await waitForLines(sink, 3))[2]).toMatchObject({ method: "POST", status: 403 });
    await fetch(`${server.url}/v1/runs/${id}/cancel`, { method: "POST" });
  });

  it("appends to a file readable by its owner only, or is off", async () => {
    dir = mkdtempSync(join(tmpdir(), "dossier-access-"));
    const path = join(dir, "access.log");
    const sink = openAccessLog(path, () => {})!;
    sink.write('{"a":1}');
    sink.write('{"a":2}');
    await sink.close();
    expect(readFileSync(path, "utf8")).toBe('{"a":1}\n{"a":2}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(openAccessLog("off", () => {})).toBeNull();
    const err: string[] = [];
    openAccessLog("stderr", (t) => err.push(t))!.write("x");
    expect(err).toEqual(["x\n"]);
  });
});
