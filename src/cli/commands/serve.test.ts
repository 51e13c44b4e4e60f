/**
 * `dossier serve` as a real process: prints its URL and the new token once, serves with it,
 * and exits 143 on SIGTERM after shutting down.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
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
