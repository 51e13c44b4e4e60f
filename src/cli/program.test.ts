import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { recordingIo } from "../../test/cli-io.ts";
import { createStrategyRegistry } from "../strategies/registry.ts";
import { COMMANDS } from "./commands/catalog.ts";
import { ENVIRONMENT_HELP } from "./commands/config.ts";
import { commandOf, createProgram, runCli } from "./program.ts";

describe("the program", () => {
  it("finds the command an argument list runs, skipping global options and their values", () => {
    expect(commandOf(["research", "q"])).toBe("research");
    expect(commandOf(["--home", "research", "runs", "list"])).toBe("runs");
    expect(commandOf(["--model", "openai:gpt-4o", "--debug", "search", "x"])).toBe("search");
    expect(commandOf(["help", "eval"])).toBe("eval");
    expect(commandOf(["--version"])).toBeNull();
    expect(commandOf([])).toBeNull();
  });

  it("lists every catalogue command in the top-level help without loading them", async () => {
    const io = recordingIo({ cwd: tmpdir() });
    expect(await runCli(["--help"], io)).toBe(0);
    for (const entry of COMMANDS) expect(io.stdout).toContain(entry.name);
    const program = await createProgram(io, ["--help"]);
    // Placeholders carry no options: only the command that runs is registered in full.
    for (const command of program.commands) expect(command.options).toHaveLength(0);
  });

  it("registers the command that runs in full, with the strategy choices from the registry", async () => {
    const io = recordingIo({ cwd: tmpdir() });
    expect(await runCli(["research", "--help"], io)).toBe(0);
    for (const name of createStrategyRegistry().names()) expect(io.stdout).toContain(name);
    expect(io.stdout).toContain("--max-tool-calls");
  });

  it("names the same environment variables as the settings table", async () => {
    const io = recordingIo({ cwd: tmpdir() });
    await runCli(["--help"], io);
    const listed = io.stdout.replace(/\s+/g, " ");
    for (const name of ENVIRONMENT_HELP) expect(listed).toContain(name);
  });

  it("lists the strategies with their roles and options", async () => {
    const io = recordingIo({ cwd: tmpdir() });
    expect(await runCli(["strategies", "--json"], io)).toBe(0);
    const listed = JSON.parse(io.stdout) as {
      name: string;
      roles: string[];
      options: { properties?: object };
    }[];
    expect(listed.map((s) => s.name)).toEqual(createStrategyRegistry().names());
    expect(Object.keys(listed.find((s) => s.name === "minddr")!.options.properties ?? {})).toContain(
      "maxSteps",
    );
  });

  it("lists the sampling each strategy states, per protocol and role", async () => {
    const io = recordingIo({ cwd: tmpdir() });
    expect(await runCli(["strategies", "--json"], io)).toBe(0);
    const listed = JSON.parse(io.stdout) as {
      name: string;
      sampling: { protocol: string | null; roles: object }[];
    }[];
    const smtl = listed.find((s) => s.name === "smtl")!;
    expect(smtl.sampling).toEqual([
      {
        protocol: "json",
        roles: { searcher: { temperature: 1, topP: 0.9, maxOutputTokens: 8192 }, reader: { temperature: 0 } },
      },
      {
        protocol: "native",
        roles: { searcher: { temperature: 1, topP: 0.9, maxOutputTokens: 8192 }, reader: { temperature: 0 } },
      },
    ]);
    const text = recordingIo({ cwd: tmpdir() });
    expect(await runCli(["strategies"], text)).toBe(0);
    expect(text.stdout).toContain(
      "sampling (protocol native): searcher temperature 1, top-p 0.9, 8192 output tokens; reader temperature 0",
    );
  });
});
