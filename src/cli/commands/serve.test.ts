/**
 * `dossier serve` as a real process: prints its URL and the new token once, serves with it,
 * and exits 143 on SIGTERM after shutting down; answers only to its own and the allowed hosts,
 * and writes its access log where told.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../main.ts", import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("dossier serve", () => {
  it("prints the URL and the token once, answers with it, and exits 143 on SIGTERM", {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "dossier-serve-"));
    dirs.push(dir);
    const home = join(dir, "data");
    const child = spawn(process.execPath, [main, "serve", "--port", "0", "--max-runs", "1"], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, DOSSIER_HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (c) => {
      stderr += String(c);
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (c) => {
        stdout += String(c);
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+) /.exec(stdout);
        if (m && stdout.includes("Send it as")) resolve(m[1]!);
      });
      void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    const token = readFileSync(join(home, "server-token"), "utf8").trim();
    expect(statSync(join(home, "server-token")).mode & 0o777).toBe(0o600);
    expect(stdout).toContain(`: ${token}\n`);
    expect((await fetch(`${url}/v1/runs`)).status).toBe(401);
    const ok = await fetch(`${url}/v1/runs`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    expect(stderr).toContain("shutting down (SIGTERM)");
  });
});

describe("dossier serve — allowed hosts and the access log", () => {
  it("answers 403 to other hosts, to --allowed-host names, and logs each request to --access-log", {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "dossier-serve-"));
    dirs.push(dir);
    const log = join(dir, "access.log");
    const child = spawn(
      process.execPath,
      [main, "serve", "--port", "0", "--no-auth", "--allowed-host", "box.lan", "--access-log", log],
      {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir, DOSSIER_HOME: join(dir, "data") },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (c) => {
      stderr += String(c);
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on("data", (c) => {
        stdout += String(c);
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+) /.exec(stdout);
        if (m) resolve(Number(m[1]));
      });
      void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port, path: "/v1/runs", headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end();
      });
    expect(await status("box.lan")).toBe(200);
    expect(await status(`localhost:${port}`)).toBe(200);
    expect(await status("evil.example")).toBe(403);
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    const lines = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.route, l.status])).toEqual([
      ["/v1/runs", 200],
      ["/v1/runs", 200],
      ["/*", 403],
    ]);
    // The log went to the file, not to stderr.
    expect(stderr).not.toContain('"type":"access"');
  });
});
