/**
 * Smoke tests of the real `dossier` binary in a child process: what only a process shows —
 * its exit code, what reaches its own stdout and stderr, the Node version check, and Ctrl-C.
 * Everything else about the CLI is tested in-process through `runCli`; keep this file small,
 * since every case here pays for a fresh Node start and module load.
 */

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../test/cli-io.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";

const BIN = fileURLToPath(new URL("../../bin/dossier.js", import.meta.url));
const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as {
    version: string;
  }
).version;

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts the binary with a minimal environment plus `env`; asynchronous, so servers in this
 * process can answer it. `nodeArgs` go before the script.
 */
function start(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; nodeArgs?: string[] },
): { kill(signal: NodeJS.Signals): void; done: Promise<Outcome> } {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", HOME: options.cwd, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const done = new Promise<Outcome>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { kill: (signal) => child.kill(signal), done };
}

let cwd: string;
beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-bin-")));
});
afterEach(() => {
  fs.rmSync(cwd, { recursive: true, force: true });
});

describe("the dossier binary", () => {
  it("prints help and the version on stdout and exits 0", async () => {
    const [help, version] = await Promise.all([
      start(["--help"], { cwd }).done,
      start(["--version"], { cwd }).done,
    ]);
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(/^Usage: dossier/);
    expect(help.stdout).toMatch(/^\s+research\b/m);
    expect(version).toEqual({ code: 0, signal: null, stdout: `${PACKAGE_VERSION}\n`, stderr: "" });
  });

  it("exits 2 with one line on stderr for a bad setting", async () => {
    const result = await start(["config"], { cwd, env: { DOSSIER_MODEL: "nonsense" } }).done;
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^dossier: error \[CONFIG_INVALID\]: [^\n]*DOSSIER_MODEL[^\n]*\n$/);
  });

  it("refuses an unsupported Node with one line and exit code 2, loading nothing else", async () => {
    // The version check runs before any import, so a preload that reports an old version is
    // enough to exercise it on the pinned Node.
    const fakeOldNode = `data:text/javascript,Object.defineProperty(process,"versions",{value:{...process.versions,node:"20.0.0"}})`;
    const result = await start(["--version"], { cwd, nodeArgs: ["--import", fakeOldNode] }).done;
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^dossier: error \[CONFIG_INVALID\]: Node 20\.0\.0 [^\n]*\n$/);
  });
});

describe("Ctrl-C during dossier research", () => {
  let world: ResearchWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("cancels the run, exits 130 and records it as cancelled", async () => {
    world = await startResearchWorld({ subtasks: 3, latencyMs: 400 });
    const env = {
      DOSSIER_HOME: world.home,
      DOSSIER_MODEL: "openai-compatible:fake-model",
      DOSSIER_BASE_URL: world.model.url,
      DOSSIER_API_KEY: "sk-test",
      DOSSIER_SEARCH: "searxng",
      SEARXNG_URL: world.search.baseUrl("searxng"),
      DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
    };
    const run = start(["research", "How is topic adoption changing?", "--strategy", "minddr"], {
      cwd: world.home,
      env,
    });
    // Interrupt once the run is under way (two model calls made), unless it ended first.
    let ended = false;
    void run.done.then(() => {
      ended = true;
    });
    while (!ended && world.script.counts.planner + world.script.counts["search-step"] < 2)
      await new Promise((r) => setTimeout(r, 50));
    if (ended) {
      const early = await run.done;
      throw new Error(`the run ended before it was interrupted (exit ${early.code}): ${early.stderr}`);
    }
    run.kill("SIGINT");
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain("cancelled");
    const list = await runCliInProcess(["runs", "list", "--json"], { cwd: world.home, env });
    const [record] = JSON.parse(list.stdout);
    expect(record).toMatchObject({ status: "cancelled", stopReason: "cancelled: interrupted (Ctrl-C)" });
  });
});
