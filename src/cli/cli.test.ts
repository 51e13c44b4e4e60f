import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recordingIo } from "../../test/cli-io.ts";
import { runCli } from "./program.ts";

const BIN = fileURLToPath(new URL("../../bin/dossier.js", import.meta.url));
const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as {
    version: string;
  }
).version;
const SECRET = "sk-verysecretvalue1234";

let cwd: string;

beforeEach(() => {
  // realpath: the child reports process.cwd(), which resolves symlinks such as /tmp on macOS.
  cwd = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-")));
});

afterEach(() => {
  fs.rmSync(cwd, { recursive: true, force: true });
});

/** Runs the real binary in the temp dir with a minimal environment plus `env`. */
function dossier(args: string[], env: Record<string, string> = {}): SpawnSyncReturns<string> {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: cwd, ...env },
    encoding: "utf8",
  });
  if (result.error) throw result.error;
  return result;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "");

describe("the dossier binary", () => {
  it("--help exits 0 and lists the config command", () => {
    const result = dossier(["--help"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: dossier/);
    expect(result.stdout).toMatch(/^\s+config\b/m);
    expect(result.stdout).toContain("DOSSIER_MODEL");
    expect(result.stderr).toBe("");
  });

  it("--version prints the package version", () => {
    const result = dossier(["--version"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${PACKAGE_VERSION}\n`);
  });

  it("config shows the data directory and which keys are not set", () => {
    const result = dossier(["config"]);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain(`Dossier ${PACKAGE_VERSION}`);
    expect(result.stdout).toMatch(
      new RegExp(`^Data directory\\s+${escapeRegExp(join(cwd, ".dossier"))}$`, "m"),
    );
    expect(result.stdout).toMatch(/^\s+OPENAI_API_KEY\s+not set$/m);
    expect(result.stdout).toMatch(/^\s+TAVILY_API_KEY\s+not set$/m);
    // Showing the configuration does not create the store.
    expect(fs.existsSync(join(cwd, ".dossier"))).toBe(false);
  });

  it("config --json prints parseable JSON that reports a key as present without its value", () => {
    const result = dossier(["config", "--json"], { OPENAI_API_KEY: SECRET });
    expect(result.status).toBe(0);
    expect(result.stdout).not.toContain(SECRET);
    expect(result.stderr).not.toContain(SECRET);
    expect(result.stdout).not.toContain("verysecretvalue");
    const parsed = JSON.parse(result.stdout) as {
      version: string;
      home: string;
      keys: Array<{ name: string; present: boolean; masked: string | null; from: string | null }>;
      config: { providerKeys: { openai?: string } };
    };
    expect(parsed.version).toBe(PACKAGE_VERSION);
    expect(parsed.home).toBe(join(cwd, ".dossier"));
    expect(parsed.keys.find((k) => k.name === "OPENAI_API_KEY")).toEqual({
      name: "OPENAI_API_KEY",
      present: true,
      masked: "sk-…1234",
      from: "OPENAI_API_KEY",
    });
    expect(parsed.keys.find((k) => k.name === "ANTHROPIC_API_KEY")).toMatchObject({ present: false });
    expect(parsed.config.providerKeys.openai).toBe("sk-…1234");
  });

  it("reports a bad DOSSIER_MODEL on exactly one stderr line, exit code 2, without a stack", () => {
    const result = dossier(["config"], { DOSSIER_MODEL: "nonsense" });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    const errLines = lines(result.stderr);
    expect(errLines).toHaveLength(1);
    expect(errLines[0]).toMatch(/^dossier: error \[CONFIG_INVALID\]: /);
    expect(errLines[0]).toContain("DOSSIER_MODEL");
    expect(errLines[0]).toContain('"nonsense"');
    expect(errLines[0]).toContain("provider:model");
    expect(result.stderr).not.toContain("    at ");
  });

  it("prints the stack and details with --debug", () => {
    const result = dossier(["--debug", "config"], { DOSSIER_MODEL: "nonsense" });
    expect(result.status).toBe(2);
    expect(lines(result.stderr)[0]).toMatch(/^dossier: error \[CONFIG_INVALID\]: .*DOSSIER_MODEL/);
    expect(result.stderr).toContain("    at ");
    expect(result.stderr).toContain('details: {"setting":"DOSSIER_MODEL"');
  });

  it("exits non-zero on an unknown command", () => {
    const result = dossier(["frobnicate"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
    expect(result.stdout).toBe("");
  });
});

const fakeIo = (env: Record<string, string | undefined> = {}) => recordingIo({ cwd, env });

describe("runCli in-process", () => {
  it("config --json follows flags > environment > file", async () => {
    fs.writeFileSync(
      join(cwd, "dossier.config.json"),
      JSON.stringify({ model: "openai:gpt-4o", home: "file-home", concurrency: 2 }),
    );
    const io = fakeIo({ DOSSIER_HOME: "env-home", DOSSIER_MODEL: "anthropic:claude-sonnet-4" });
    const code = await runCli(["--home", "flag-home", "config", "--json"], io);
    expect(code).toBe(0);
    expect(io.stderr).toBe("");
    const d = JSON.parse(io.stdout) as {
      configFile: string | null;
      home: string;
      store: { path: string; exists: boolean };
      models: Array<{ role: string; model: string | null; from: string }>;
      concurrency: number;
    };
    expect(d.configFile).toBe(join(cwd, "dossier.config.json"));
    expect(d.home).toBe(resolve(cwd, "flag-home"));
    expect(d.store).toEqual({ path: join(cwd, "flag-home", "dossier.db"), exists: false });
    expect(d.concurrency).toBe(2);
    expect(d.models.find((m) => m.role === "default")).toMatchObject({
      model: "anthropic:claude-sonnet-4",
      from: "DOSSIER_MODEL",
    });
    expect(d.models.find((m) => m.role === "writer")).toMatchObject({
      model: "anthropic:claude-sonnet-4",
      from: "default model",
    });
  });

  it("config shows a per-role model and masks every key", async () => {
    const io = fakeIo({
      DOSSIER_MODEL: "openai:gpt-4o",
      DOSSIER_MODEL_WRITER: "anthropic:claude-opus-4-1",
      OPENAI_API_KEY: SECRET,
      TAVILY_API_KEY: "tvly-anothersecret9876",
    });
    const code = await runCli(["config"], io);
    expect(code).toBe(0);
    expect(io.stdout).toMatch(/^\s+writer\s+anthropic:claude-opus-4-1\s+DOSSIER_MODEL_WRITER\b/m);
    expect(io.stdout).toMatch(/^\s+OPENAI_API_KEY\s+set \(sk-…1234, from OPENAI_API_KEY\)$/m);
    expect(io.stdout).toMatch(/^\s+ANTHROPIC_API_KEY\s+not set$/m);
    expect(io.stdout).not.toContain(SECRET);
    expect(io.stdout).not.toContain("anothersecret");
    expect(io.stdout).toMatch(new RegExp(`^Data directory\\s+${escapeRegExp(join(cwd, ".dossier"))}$`, "m"));
  });

  it("config returns 2 and writes one error line for a bad setting", async () => {
    const io = fakeIo({ DOSSIER_MODEL: "nonsense" });
    const code = await runCli(["config"], io);
    expect(code).toBe(2);
    expect(io.stdout).toBe("");
    expect(io.stderr.endsWith("\n")).toBe(true);
    expect(lines(io.stderr)).toHaveLength(1);
    expect(io.stderr).toContain("DOSSIER_MODEL");
    expect(io.stderr).toContain("provider:model");
  });

  it("config with a missing --config file fails with CONFIG_INVALID", async () => {
    const io = fakeIo();
    const code = await runCli(["--config", "nope.json", "config"], io);
    expect(code).toBe(2);
    expect(lines(io.stderr)).toHaveLength(1);
    expect(io.stderr).toMatch(/^dossier: error \[CONFIG_INVALID\]: .*nope\.json/);
  });

  it("--help and --version return 0 and write to out", async () => {
    const help = fakeIo();
    expect(await runCli(["--help"], help)).toBe(0);
    expect(help.stdout).toContain("config");
    const version = fakeIo();
    expect(await runCli(["--version"], version)).toBe(0);
    expect(version.stdout).toBe(`${PACKAGE_VERSION}\n`);
  });

  it("returns 2 for an unknown command", async () => {
    const io = fakeIo();
    expect(await runCli(["frobnicate"], io)).toBe(2);
    expect(io.stderr).toContain("unknown command 'frobnicate'");
  });
});
