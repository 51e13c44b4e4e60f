/**
 * Honest outcomes and early checks of `dossier research`: bad input is refused before the first
 * model call with a one-line error and exit 2; a model that cannot be used fails the run at
 * once (exit 1, never `completed`); secrets in configured URLs never reach the output.
 */

import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../test/cli-io.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../test/fake-openai/index.ts";

const dirs: string[] = [];
const servers: FakeOpenAI[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function project(): string {
  const root = mkdtempSync(join(tmpdir(), "dossier-outcomes-"));
  dirs.push(root);
  mkdirSync(join(root, "docs"));
  writeFileSync(
    join(root, "docs", "note.md"),
    "# Note\n\nHeat pumps kept working at minus 15 degrees in the trial.\n",
  );
  return root;
}

async function model(): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI({ replies: [] });
  servers.push(server);
  return server;
}

const question = "How do heat pumps perform in winter?";

describe("input checked before the first model call", () => {
  const cases: [string, (root: string) => string[], RegExp][] = [
    ["an impossible --date", () => ["--date", "2026-13-45"], /currentDate: not a calendar date/],
    [
      "--out whose .html target is a directory",
      (root) => {
        mkdirSync(join(root, "r.html"));
        return ["--out", join(root, "r"), "--format", "md,html"];
      },
      /r\.html: it is a directory/,
    ],
    [
      "--out under a parent that is a file",
      (root) => {
        writeFileSync(join(root, "plain"), "x");
        return ["--out", join(root, "plain", "sub", "r")];
      },
      /plain is not a directory/,
    ],
    ["--out /dev/null", () => ["--out", "/dev/null"], /\/dev\/null: it is a device/],
    ["a format given twice", () => ["--format", "md,html,md"], /--format: "md" is given more than once/],
    [
      "--max-cost with an unpriced model",
      () => ["--max-cost", "0.01"],
      /--max-cost needs a price .*"prices"/,
    ],
    [
      "an option the strategy does not have",
      () => ["--strategy", "graph", "--max-steps", "3"],
      /maxSteps is not an option of the graph strategy/,
    ],
  ];
  for (const [name, flags, message] of cases) {
    it(`refuses ${name} with exit 2, one line, no model call and no report file`, async () => {
      const root = project();
      const server = await model();
      const env = {
        DOSSIER_MODEL: "openai-compatible:m",
        DOSSIER_BASE_URL: server.url,
        DOSSIER_HOME: join(root, "home"),
      };
      const argv = ["research", question, "--docs", "docs", "--json", ...flags(root)];
      const before = readdirSync(root).sort();
      const r = await runCliInProcess(argv, {
        cwd: root,
        env,
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(server.requests).toHaveLength(0);
      const after = readdirSync(root)
        .filter((f) => f !== "home")
        .sort();
      expect(after).toEqual(before.filter((f) => f !== "home"));
    });
  }

  it("refuses a docs folder that does not exist, and names the key a chosen search provider lacks", async () => {
    const root = project();
    const server = await model();
    const env = {
      DOSSIER_MODEL: "openai-compatible:m",
      DOSSIER_BASE_URL: server.url,
      DOSSIER_HOME: join(root, "h"),
    };
    const missing = await runCliInProcess(["research", question, "--docs", "./missing"], { cwd: root, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/INPUT_INVALID.*--docs \.\/missing: no such folder/);
    const tavily = await runCliInProcess(["research", question], {
      cwd: root,
      env: { ...env, DOSSIER_SEARCH: "tavily" },
    });
    expect(tavily.code).toBe(2);
    expect(tavily.stderr).toMatch(/tavily needs TAVILY_API_KEY/);
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a data directory that is a file, naming the setting", async () => {
    const root = project();
    writeFileSync(join(root, "home-file"), "x");
    const r = await runCliInProcess(["research", question, "--docs", "docs"], {
      cwd: root,
      env: { DOSSIER_HOME: join(root, "home-file") },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/CONFIG_INVALID.*DOSSIER_HOME: .*home-file is a file/);
  });

  it("refuses credentials in a search URL without printing them", async () => {
    const root = project();
    const r = await runCliInProcess(["research", question, "--docs", "docs"], {
      cwd: root,
      env: {
        DOSSIER_SEARCH: "searxng",
        SEARXNG_URL: "http://alice:hunter2@127.0.0.1:9/",
        DOSSIER_HOME: join(root, "h"),
      },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/SEARXNG_URL/);
    expect(r.stderr + r.stdout).not.toContain("hunter2");
  });
});

describe("a model that cannot be used", () => {
  it("fails the run at once with MODEL_UNREACHABLE when the endpoint refuses connections", async () => {
    const root = project();
    const r = await runCliInProcess(
      ["research", question, "--docs", "docs", "--sources", "local", "--json"],
      {
        cwd: root,
        env: {
          DOSSIER_MODEL: "openai-compatible:m",
          DOSSIER_BASE_URL: "http://127.0.0.1:1/v1",
          DOSSIER_API_KEY: "sk-secret-key",
          DOSSIER_HOME: join(root, "h"),
        },
      },
    );
    expect(r.code).toBe(1);
    const summary = JSON.parse(r.stdout.trim()) as {
      status: string;
      error: { code: string; message: string };
    };
    expect(summary.status).toBe("failed");
    expect(summary.error.code).toBe("MODEL_UNREACHABLE");
    expect(summary.error.message).toContain("http://127.0.0.1:1/v1");
    const errors = r.stderr.split("\n").filter((l) => l.startsWith("dossier: error"));
    expect(errors).toEqual([`dossier: error [MODEL_UNREACHABLE]: ${summary.error.message}`]);
    expect(r.stderr + r.stdout).not.toContain("sk-secret-key");
  }, 30_000);

  it("fails the run when the model answers 401", async () => {
    const root = project();
    const server = await startFakeOpenAI({
      handler: () => ({ kind: "error", status: 401, message: "bad key" }),
    });
    servers.push(server);
    const r = await runCliInProcess(
      ["research", question, "--docs", "docs", "--sources", "local", "--json"],
      {
        cwd: root,
        env: {
          DOSSIER_MODEL: "openai-compatible:m",
          DOSSIER_BASE_URL: server.url,
          DOSSIER_HOME: join(root, "h"),
        },
      },
    );
    expect(r.code).toBe(1);
    const summary = JSON.parse(r.stdout.trim()) as {
      status: string;
      error: { code: string };
      llmCalls: number;
    };
    expect(summary).toMatchObject({ status: "failed", error: { code: "MODEL_UNREACHABLE" } });
    // One call was enough to know: no retries of a refused key, no further roles tried.
    expect(server.requests.filter((q) => q.path.endsWith("/chat/completions"))).toHaveLength(1);
  });
});
