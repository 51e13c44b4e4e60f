/**
 * The CLI in-process through `runCli`: help, version, `config`, errors and exit codes. The
 * real binary's own behaviour (process exit codes, signals, the Node version check) is in
 * bin-smoke.test.ts.
 */

import fs from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliOutcome, recordingIo, runCliInProcess } from "../../test/cli-io.ts";
import { runCli } from "./program.ts";

const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as {
    version: string;
  }
).version;
const SECRET = "sk-verysecretvalue1234";

let cwd: string;

beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-")));
});

afterEach(() => {
  fs.rmSync(cwd, { recursive: true, force: true });
});

/** Runs `dossier <args>` in-process in the temp dir with only `env` as its environment. */
function dossier(args: string[], env: Record<string, string> = {}): Promise<CliOutcome> {
  return runCliInProcess(args, { cwd, env: { HOME: cwd, ...env } });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "");

describe("dossier", () => {
  it("--help exits 0 and lists the config command", async () => {
    const result = await dossier(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: dossier/);
    expect(result.stdout).toMatch(/^\s+config\b/m);
    expect(result.stdout).toContain("DOSSIER_MODEL");
    expect(result.stderr).toBe("");
  });

  it("--version prints the package version", async () => {
    const result = await dossier(["--version"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${PACKAGE_VERSION}\n`);
  });

  it("config shows the data directory and which keys are not set", async () => {
    const result = await dossier(["config"]);
    expect(result.code).toBe(0);
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

  it("config --json prints parseable JSON that reports a key as present without its value", async () => {
    const result = await dossier(["config", "--json"], { OPENAI_API_KEY: SECRET });
    expect(result.code).toBe(0);
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

  it("reports a bad DOSSIER_MODEL on exactly one stderr line, exit code 2, without a stack", async () => {
    const result = await dossier(["config"], { DOSSIER_MODEL: "nonsense" });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.endsWith("\n")).toBe(true);
    const errLines = lines(result.stderr);
    expect(errLines).toHaveLength(1);
    expect(errLines[0]).toMatch(/^dossier: error \[CONFIG_INVALID\]: /);
    expect(errLines[0]).toContain("DOSSIER_MODEL");
    expect(errLines[0]).toContain('"nonsense"');
    expect(errLines[0]).toContain("provider:model");
    expect(result.stderr).not.toContain("    at ");
  });

  it("prints the stack and details with --debug", async () => {
    const result = await dossier(["--debug", "config"], { DOSSIER_MODEL: "nonsense" });
    expect(result.code).toBe(2);
    expect(lines(result.stderr)[0]).toMatch(/^dossier: error \[CONFIG_INVALID\]: .*DOSSIER_MODEL/);
    expect(result.stderr).toContain("    at ");
    expect(result.stderr).toContain('details: {"setting":"DOSSIER_MODEL"');
  });

  it("exits 2 on an unknown command", async () => {
    const result = await dossier(["frobnicate"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
    expect(result.stdout).toBe("");
  });

  it("prints a command's own options with <command> --help and help <command>", async () => {
    const flag = await dossier(["research", "--help"]);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toMatch(/^Usage: dossier research \[options\] <question>/);
    expect(flag.stdout).toContain("--strategy <name>");
    const word = await dossier(["help", "research"]);
    expect(word.code).toBe(0);
    expect(word.stdout).toBe(flag.stdout);
  });

  it("config --json follows flags > environment > file", async () => {
    fs.writeFileSync(
      join(cwd, "dossier.config.json"),
      JSON.stringify({ model: "openai:gpt-4o", home: "file-home", concurrency: 2 }),
    );
    const result = await dossier(["--home", "flag-home", "config", "--json"], {
      DOSSIER_HOME: "env-home",
      DOSSIER_MODEL: "anthropic:claude-sonnet-4",
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const d = JSON.parse(result.stdout) as {
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
    const result = await dossier(["config"], {
      DOSSIER_MODEL: "openai:gpt-4o",
      DOSSIER_MODEL_WRITER: "anthropic:claude-opus-4-1",
      OPENAI_API_KEY: SECRET,
      TAVILY_API_KEY: "tvly-anothersecret9876",
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\s+writer\s+anthropic:claude-opus-4-1\s+DOSSIER_MODEL_WRITER\b/m);
    expect(result.stdout).toMatch(/^\s+OPENAI_API_KEY\s+set \(sk-…1234, from OPENAI_API_KEY\)$/m);
    expect(result.stdout).toMatch(/^\s+ANTHROPIC_API_KEY\s+not set$/m);
    expect(result.stdout).not.toContain(SECRET);
    expect(result.stdout).not.toContain("anothersecret");
  });

  it("config with a missing --config file fails with CONFIG_INVALID", async () => {
    const result = await dossier(["--config", "nope.json", "config"]);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/^dossier: error \[CONFIG_INVALID\]: .*nope\.json/);
  });

  it("reads the environment and working directory it is given, not the process's", async () => {
    const other = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-other-")));
    try {
      fs.writeFileSync(join(other, "dossier.config.json"), JSON.stringify({ concurrency: 3 }));
      const io = recordingIo({ cwd: other, env: { DOSSIER_LANGUAGE: "fr" } });
      expect(await runCli(["config", "--json"], io)).toBe(0);
      const d = JSON.parse(io.stdout) as { configFile: string | null; home: string; concurrency: number };
      expect(d.configFile).toBe(join(other, "dossier.config.json"));
      expect(d.home).toBe(join(other, ".dossier"));
      expect(d.concurrency).toBe(3);
      expect(io.stdout).toContain('"fr"');
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
