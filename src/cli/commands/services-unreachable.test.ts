/**
 * "No services, no change": a PostgreSQL or Redis URL that does not answer is a clear STORE_ERROR
 * naming it (without its password) before any run starts — nothing is prepared, indexed, stored
 * or queued; without the URLs the same commands work in this process on SQLite.
 */

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../../test/cli-io.ts";

const DEAD_DATABASE = "postgres://ada:s3cret@127.0.0.1:9/dossier";
const DEAD_REDIS = "redis://ada:s3cret@127.0.0.1:9";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function project(): string {
  dir = mkdtempSync(join(tmpdir(), "dossier-unreachable-"));
  mkdirSync(join(dir, "notes"));
  writeFileSync(
    join(dir, "notes", "heat.md"),
    "# Heat pumps\n\nCold-climate heat pumps kept a coefficient of performance above 2 at minus 15 degrees.\n",
  );
  writeFileSync(join(dir, "questions.jsonl"), '{"id":"1","prompt":"How do heat pumps cope with cold?"}\n');
  return dir;
}

const cli = (args: string[], cwd: string, env: Record<string, string> = {}) =>
  runCliInProcess(args, { cwd, env: { HOME: cwd, DOSSIER_HOME: join(cwd, "data"), ...env } });

/** The error a command printed: a STORE_ERROR naming `url` without its password. */
function expectStoreError(out: { code: number; stdout: string; stderr: string }, shown: string): void {
  expect(out.code).not.toBe(0);
  expect(out.stderr).toContain("[STORE_ERROR]");
  expect(out.stderr).toContain(shown);
  expect(out.stderr + out.stdout).not.toContain("s3cret");
}

const question = "How do heat pumps cope with cold winters?";
const offline = ["--docs", "notes", "--sources", "local", "--strategy", "offline"];

describe("a service URL that does not answer", () => {
  it("fails dossier research before the run starts: nothing indexed, nothing stored", async () => {
    const cwd = project();
    const out = await cli(["research", question, ...offline, "--json"], cwd, {
      DOSSIER_DATABASE_URL: DEAD_DATABASE,
    });
    expectStoreError(out, "postgres://ada:***@127.0.0.1:9/dossier");
    expect(out.stderr).not.toMatch(/started|indexed/);
    expect(out.stdout).toBe("");
    expect(existsSync(join(cwd, "data"))).toBe(false);
  });

  it("fails dossier worker before it takes a job (the queue named, not the limiter)", async () => {
    const out = await cli(["worker"], project(), { DOSSIER_REDIS_URL: DEAD_REDIS });
    expectStoreError(out, "cannot use the run queue at redis://ada:***@127.0.0.1:9");
  });

  it("fails dossier batch --queue before the first run, and dossier serve --queue before it listens", async () => {
    const cwd = project();
    const batch = await cli(["batch", "questions.jsonl", "--corpus", "notes", "--strategy", "offline"], cwd, {
      DOSSIER_REDIS_URL: DEAD_REDIS,
    });
    expectStoreError(batch, "redis://ada:***@127.0.0.1:9");
    expect(existsSync(join(cwd, "questions-offline.jsonl"))).toBe(false);
    const serve = await cli(["serve", "--port", "0", "--queue", DEAD_REDIS], cwd);
    expectStoreError(serve, "redis://ada:***@127.0.0.1:9");
    expect(serve.stdout).not.toContain("listening");
  }, 30_000);
});

describe("without service URLs", () => {
  it("runs research in this process on SQLite, as before", async () => {
    const cwd = project();
    const out = await cli(["research", question, ...offline, "--json", "--out", "report"], cwd);
    expect(out.code, out.stderr).toBe(0);
    const summary = JSON.parse(out.stdout.trim()) as { status: string; runId: string };
    expect(summary.status).toBe("completed");
    expect(existsSync(join(cwd, "data", "dossier.db"))).toBe(true);
    const list = await cli(["runs", "list"], cwd);
    expect(list.stdout).toContain(`${summary.runId}  completed`);
    expect(list.stdout).not.toMatch(/queue|queued/);
  });
});
