/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, server scenarios)
 * against `dossier serve --no-auth` at /mcp, on loopback: the suite connects to nothing else.
 *
 * Run: the scenarios that apply to a server without the suite's own test tools —
 * server-initialize, ping, logging-set-level, tools-list, server-sse-multiple-streams,
 * resources-list and dns-rebinding-protection.
 *
 * Left out: every scenario that calls a tool only the suite's reference server has. That
 * includes tools-call-simple-text (`test_simple_text`) and tools-call-error
 * (`test_error_handling`): against a server without those tools they passed only while an
 * unknown tool was answered as an `isError` tool result; Dossier answers an unknown tool with
 * JSON-RPC invalid params (-32602), as the specification's error handling asks, so they cannot
 * pass and would test nothing of Dossier if they did. Also left out: the prompts, completion,
 * resources-read/subscribe, sampling, elicitation and SSE polling scenarios (features or test
 * resources Dossier does not have).
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../cli/main.ts", import.meta.url));
const suite = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")),
  "dist",
  "index.js",
);

/** The scenarios run, each with the checks it must report. */
const SCENARIOS: Record<string, string[]> = {
  "server-initialize": ["server-initialize"],
  ping: ["ping"],
  "logging-set-level": ["logging-set-level"],
  "tools-list": ["tools-list"],
  "server-sse-multiple-streams": ["server-accepts-multiple-post-streams", "server-sse-streams-functional"],
  "resources-list": ["resources-list"],
  "dns-rebinding-protection": ["localhost-host-rebinding-rejected", "localhost-host-valid-accepted"],
};

let dir: string;
let server: ChildProcess | undefined;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dossier-conformance-"));
  const child = spawn(process.execPath, [main, "serve", "--port", "0", "--no-auth", "--access-log", "off"], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir, DOSSIER_HOME: join(dir, "data") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server = child;
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (c) => {
    stderr += String(c);
  });
  url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (c) => {
      stdout += String(c);
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+) /.exec(stdout);
      if (m) resolve(`${m[1]}/mcp`);
    });
    child.once("exit", (code) => reject(new Error(`dossier serve exited ${code}: ${stderr}`)));
  });
}, 60_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

/** Runs one scenario of the suite; resolves with its exit code, checks and output. */
function runScenario(scenario: string): Promise<{ code: number | null; checks: Check[]; output: string }> {
  const out = join(dir, "results", scenario);
  const child = spawn(process.execPath, [suite, "server", "--url", url, "--scenario", scenario, "-o", out], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c) => {
    output += String(c);
  });
  child.stderr.on("data", (c) => {
    output += String(c);
  });
  return new Promise((resolve) => {
    child.once("exit", (code) => {
      const files = readdirSync(out, { recursive: true, encoding: "utf8" }).filter((f) =>
        f.endsWith("checks.json"),
      );
      const checks = files.flatMap((f) => JSON.parse(readFileSync(join(out, f), "utf8")) as Check[]);
      resolve({ code, checks, output });
    });
  });
}

describe("MCP conformance suite against dossier serve --no-auth at /mcp", () => {
  it("passes the server scenarios that apply to it", { timeout: 120_000 }, async () => {
    const results = await Promise.all(
      Object.keys(SCENARIOS).map(async (scenario) => ({ scenario, ...(await runScenario(scenario)) })),
    );
    for (const { scenario, code, checks, output } of results) {
      const failed = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
      expect(
        failed.map((c) => `${c.id}: ${c.errorMessage}`),
        `${scenario}\n${output}`,
      ).toEqual([]);
      expect(checks.map((c) => [c.id, c.status]).sort(), scenario).toEqual(
        SCENARIOS[scenario]!.map((id) => [id, "SUCCESS"]).sort(),
      );
      expect(code, scenario).toBe(0);
    }
  });
});
