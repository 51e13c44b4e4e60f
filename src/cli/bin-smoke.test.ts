/**
 * Smoke tests of the CLI in a child process: what only a process shows — its exit code, what
 * reaches its own stdout and stderr, the Node version check, and how a research run ends on
 * Ctrl-C, SIGTERM and SIGKILL. Everything else about the CLI is tested in-process through
 * `runCli`; keep this file small, since every case here pays for a fresh Node start.
 *
 * The children run the sources (`src/cli/main.ts`, what the bin runs in a checkout without a
 * build), so a stale `dist/` never stands in for the code under test; the bin itself is run
 * for its Node version check, which happens before it loads anything. The installed, built
 * bin is exercised by the packaging test.
 */

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, type TestContext } from "vitest";
import { runCliInProcess } from "../../test/cli-io.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../test/fake-openai/index.ts";

const BIN = fileURLToPath(new URL("../../bin/dossier.js", import.meta.url));
const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));
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
 * Starts `dossier <args>` (the sources, or `options.script`) with a minimal environment plus
 * `env`; asynchronous, so servers in this process can answer it. `nodeArgs` go before the script.
 */
function start(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; nodeArgs?: string[]; script?: string },
): { kill(signal: NodeJS.Signals): void; done: Promise<Outcome> } {
  const script = options.script ?? MAIN;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...args], {
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

/**
 * A fresh temp dir for the test of `context`, removed when it finishes. (The cases run
 * concurrently, so hooks go through the test's own context.)
 */
function tempDir(context: TestContext): string {
  const dir = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-bin-")));
  context.onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// The cases are independent and mostly wait on child processes, so they run concurrently.
describe.concurrent("the dossier process", () => {
  it("prints help and the version on stdout and exits 0", async (context) => {
    const { expect } = context;
    const cwd = tempDir(context);
    const [help, version] = await Promise.all([
      start(["--help"], { cwd }).done,
      start(["--version"], { cwd }).done,
    ]);
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(/^Usage: dossier/);
    expect(help.stdout).toMatch(/^\s+research\b/m);
    expect(version).toEqual({ code: 0, signal: null, stdout: `${PACKAGE_VERSION}\n`, stderr: "" });
  });

  it("exits 2 with one line on stderr for a bad setting", async (context) => {
    const { expect } = context;
    const cwd = tempDir(context);
    const result = await start(["config"], { cwd, env: { DOSSIER_MODEL: "nonsense" } }).done;
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^dossier: error \[CONFIG_INVALID\]: [^\n]*DOSSIER_MODEL[^\n]*\n$/);
  });

  it("refuses an unsupported Node with one line and exit code 2, loading nothing else", async (context) => {
    const { expect } = context;
    const cwd = tempDir(context);
    // The version check runs before any import, so a preload that reports an old version is
    // enough to exercise it on the pinned Node.
    const fakeOldNode = `data:text/javascript,Object.defineProperty(process,"versions",{value:{...process.versions,node:"20.0.0"}})`;
    const result = await start(["--version"], {
      cwd,
      script: BIN,
      nodeArgs: ["--import", fakeOldNode],
    }).done;
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^dossier: error \[CONFIG_INVALID\]: Node 20\.0\.0 [^\n]*\n$/);
  });
});

// Each case starts a full research process; on a loaded machine that alone can take seconds.
describe.concurrent("dossier research ended by a signal", { timeout: 60_000 }, () => {
  /** Starts `dossier research` against a model that never answers, once its first call arrived. */
  async function startResearch(context: TestContext, args: string[] = []) {
    const cwd = tempDir(context);
    const model: FakeOpenAI = await startFakeOpenAI({ latencyMs: 60_000, replies: [] });
    context.onTestFinished(() => model.close());
    fs.mkdirSync(join(cwd, "docs"));
    fs.writeFileSync(join(cwd, "docs", "n.md"), "# Note\n\nHeat pumps kept working in the cold trial.\n");
    const env = {
      DOSSIER_MODEL: "openai-compatible:m",
      DOSSIER_BASE_URL: model.url,
      DOSSIER_HOME: join(cwd, "home"),
    };
    const run = start(["research", "How do heat pumps do?", "--docs", "docs", ...args], { cwd, env });
    context.onTestFinished(() => run.kill("SIGKILL"));
    let ended = false;
    void run.done.then(() => {
      ended = true;
    });
    while (!ended && model.requests.length === 0) await new Promise((r) => setTimeout(r, 50));
    if (ended) {
      const early = await run.done;
      throw new Error(`the run ended before it was interrupted (exit ${early.code}): ${early.stderr}`);
    }
    const runs = async () =>
      JSON.parse((await runCliInProcess(["runs", "list", "--json"], { cwd, env })).stdout) as {
        status: string;
        stopReason: string | null;
      }[];
    return { ...run, runs };
  }

  it("Ctrl-C cancels the run: exit 130, recorded as cancelled", async (context) => {
    const { expect } = context;
    const run = await startResearch(context);
    run.kill("SIGINT");
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain("cancelled");
    expect(await run.runs()).toMatchObject([
      { status: "cancelled", stopReason: "cancelled: interrupted (Ctrl-C)" },
    ]);
  });

  it("SIGTERM cancels the run: exit 143, the --json summary says cancelled", async (context) => {
    const { expect } = context;
    const run = await startResearch(context, ["--json"]);
    run.kill("SIGTERM");
    const result = await run.done;
    expect(result.code).toBe(143);
    const summary = JSON.parse(result.stdout.trim()) as { status: string; stopReason: string };
    expect(summary.status).toBe("cancelled");
    expect(summary.stopReason).toMatch(/SIGTERM/);
  });

  it("after SIGKILL the run is listed as interrupted", async (context) => {
    const { expect } = context;
    const run = await startResearch(context, ["--json"]);
    run.kill("SIGKILL");
    expect((await run.done).signal).toBe("SIGKILL");
    const runs = await run.runs();
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe("interrupted");
  });
});
