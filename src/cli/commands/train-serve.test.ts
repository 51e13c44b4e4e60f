/**
 * `dossier train serve` as a real process: prints its URL and the token once (the same token
 * file as `serve`), refuses a request without it, answers a bad batch 400 and a batch the
 * configuration cannot serve 422 before anything runs, and exits 143 on SIGTERM.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../main.ts", import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("dossier train serve", () => {
  it("serves the rollout API with serve's token, checks batches before running them, exits 143 on SIGTERM", {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "dossier-train-serve-"));
    dirs.push(dir);
    const home = join(dir, "data");
    const child = spawn(process.execPath, [main, "train", "serve", "--port", "0", "--no-access-log"], {
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
    expect(stdout).toContain("Rollouts run in this process, 8 at once");
    const token = readFileSync(join(home, "server-token"), "utf8").trim();
    expect(stdout).toContain(`: ${token}\n`);
    const post = (body: unknown, auth = true) =>
      fetch(`${url}/v1/rollouts`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(auth ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      });
    const batch = {
      rows: [{ id: "q1", prompt: "Which topic grew fastest in 2025?", answer: "Topic 2" }],
      strategy: "smtl",
      group: 2,
      policy: { baseUrl: "http://127.0.0.1:9/v1", model: "policy" },
      policyVersion: 1,
      reward: { name: "smtl" },
    };
    expect((await post(batch, false)).status).toBe(401);
    expect((await post({ ...batch, group: 0 })).status).toBe(400);
    // No judge model is configured here: the batch is refused before any rollout.
    const refused = await post(batch);
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ error: { code: "MODEL_NOT_CONFIGURED" } });
    expect((await fetch(`${url}/openapi.json`)).status).toBe(200);
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    expect(stderr).toContain("shutting down (SIGTERM)");
  });
});
