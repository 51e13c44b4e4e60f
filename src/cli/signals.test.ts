/**
 * How a research process ends by signal, in real processes: SIGTERM is a cancellation (events
 * flushed, status `cancelled`, exit 143); after SIGKILL the run is listed as `interrupted`.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../test/cli-io.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../test/fake-openai/index.ts";

const main = fileURLToPath(new URL("./main.ts", import.meta.url));
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

interface Started {
  child: ChildProcess;
  root: string;
  env: Record<string, string>;
  stdout: () => string;
  exit: Promise<number | null>;
}

/** Starts `dossier research` against a model that never answers, once its first call arrived. */
async function startResearch(): Promise<Started> {
  const model: FakeOpenAI = await startFakeOpenAI({ latencyMs: 60_000, replies: [] });
  cleanup.push(() => model.close());
  const root = mkdtempSync(join(tmpdir(), "dossier-signals-"));
  cleanup.push(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, "docs"));
  writeFileSync(join(root, "docs", "n.md"), "# Note\n\nHeat pumps kept working in the cold trial.\n");
  const env = {
    PATH: process.env.PATH ?? "",
    DOSSIER_MODEL: "openai-compatible:m",
    DOSSIER_BASE_URL: model.url,
    DOSSIER_HOME: join(root, "home"),
  };
  const child = spawn(
    process.execPath,
    [main, "research", "How do heat pumps do?", "--docs", "docs", "--json"],
    {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  cleanup.push(() => child.kill("SIGKILL"));
  let out = "";
  child.stdout!.on("data", (d) => {
    out += String(d);
  });
  child.stderr!.resume();
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  for (let i = 0; i < 300 && model.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  expect(model.requests.length).toBeGreaterThan(0);
  return { child, root, env, stdout: () => out, exit };
}

describe("research ended by a signal", () => {
  it("SIGTERM cancels the run: status cancelled, exit 143", async () => {
    const run = await startResearch();
    run.child.kill("SIGTERM");
    expect(await run.exit).toBe(143);
    const summary = JSON.parse(run.stdout().trim()) as { status: string; stopReason: string };
    expect(summary.status).toBe("cancelled");
    expect(summary.stopReason).toMatch(/SIGTERM/);
  }, 30_000);

  it("after SIGKILL the run is listed as interrupted", async () => {
    const run = await startResearch();
    run.child.kill("SIGKILL");
    await run.exit;
    const listed = await runCliInProcess(["runs", "list", "--json"], { cwd: run.root, env: run.env });
    const runs = JSON.parse(listed.stdout) as { status: string; stopReason: string | null }[];
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe("interrupted");
  }, 30_000);
});
