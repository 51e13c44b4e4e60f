/**
 * `dossier research` in a pipeline: `--events ndjson` streams the events live, `--out -` prints
 * the report, `-` reads the question from standard input, `--quiet` leaves standard error to
 * errors. In-process against loopback servers, as research.test.ts.
 */

import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { recordingIo, runCliInProcess } from "../../../test/cli-io.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { readAll } from "../io.ts";
import { runCli } from "../program.ts";

let world: ResearchWorld | undefined;
let dir: string | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function worldEnv(w: ResearchWorld): Record<string, string> {
  return {
    HOME: w.home,
    DOSSIER_HOME: w.home,
    DOSSIER_MODEL: "openai-compatible:fake-model",
    DOSSIER_BASE_URL: w.model.url,
    DOSSIER_API_KEY: "sk-test",
    DOSSIER_SEARCH: "searxng",
    SEARXNG_URL: w.search.baseUrl("searxng"),
    DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
  };
}

/** A temp folder with a small docs folder for an offline run. */
function docsFolder(): string {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "dossier-stdio-")));
  mkdirSync(join(dir, "notes"));
  writeFileSync(
    join(dir, "notes", "resume.md"),
    "# Resume\n\nEvery completed model call is stored in the run's journal under a key.\n\nA resumed run replays the stored answers in order and only calls the model for steps that never completed.\n",
  );
  return dir;
}

describe("dossier research --events ndjson", () => {
  it("streams every event as it happens, one JSON line each, the summary last", async () => {
    let io: ReturnType<typeof recordingIo> | undefined;
    let atFirstModelCall: string | undefined;
    world = await startResearchWorld({
      subtasks: 2,
      onCall: () => {
        atFirstModelCall ??= io!.stdout;
      },
    });
    io = recordingIo({ cwd: world.home, env: worldEnv(world) });
    const code = await runCli(
      ["research", "How is topic adoption changing?", "--strategy", "minddr", "--events", "ndjson"],
      io,
    );
    expect(code).toBe(0);
    const lines = io.stdout.trimEnd().split("\n");
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const summary = parsed.at(-1)!;
    const events = parsed.slice(0, -1);
    expect(summary).toMatchObject({ strategy: "minddr", status: "completed" });
    expect(summary).not.toHaveProperty("seq");
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]!.type).toBe("run-start");
    expect(events.at(-1)!.type).toBe("run-end");
    // Live: when the model got its first request, the run's start and that call were already out.
    expect(atFirstModelCall).toMatch(/"type":"run-start"/);
    expect(atFirstModelCall).toMatch(/"type":"llm-start"/);
    expect(atFirstModelCall).not.toMatch(/"type":"run-end"/);
    // Exactly the stored events.
    const stored = await runCliInProcess(["runs", "events", String(summary.runId), "--json"], {
      cwd: world.home,
      env: worldEnv(world),
    });
    expect(events).toEqual(
      stored.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    );
    // No progress or "run started" line: standard error is empty.
    expect(io.stderr).toBe("");
  });
});

describe("dossier research - --out -", () => {
  it("reads the question from stdin and prints the report on stdout, the summary on stderr", async () => {
    const cwd = docsFolder();
    const run = await runCliInProcess(["research", "-", "--docs", "notes", "--out", "-"], {
      cwd,
      env: { HOME: cwd, DOSSIER_HOME: join(cwd, "data") },
      stdin: "  How does a run resume?\n",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Offline mode");
    expect(run.stdout).toMatch(/\[1\]/);
    // The summary names the report file kept under the data directory: stdout is that file.
    const path = /^ {2}(\S+\.md)$/m.exec(run.stderr)?.[1];
    expect(path).toBeDefined();
    expect(run.stdout).toBe(readFileSync(path!, "utf8"));
    expect(run.stderr).toMatch(/^Report: /m);
    // No file named "-" was written.
    expect(() => readFileSync(join(cwd, "-.md"))).toThrow();
    const list = await runCliInProcess(["runs", "list", "--json"], {
      cwd,
      env: { HOME: cwd, DOSSIER_HOME: join(cwd, "data") },
    });
    expect(list.stdout).toContain('"query":"How does a run resume?"');
  });

  it("--quiet leaves standard error empty; --format html prints the HTML report", async () => {
    const cwd = docsFolder();
    const run = await runCliInProcess(
      ["research", "How does a run resume?", "--docs", "notes", "--out", "-", "--format", "html", "--quiet"],
      { cwd, env: { HOME: cwd, DOSSIER_HOME: join(cwd, "data") } },
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/^<!doctype html>/i);
    expect(run.stdout).toContain('<ol class="references">');
  });

  it.each([
    [["--out", "-", "--json"], "--out - prints the report on standard output, which --json uses too"],
    [["--out", "-", "--events", "ndjson"], "which --events ndjson uses too"],
    [["--out", "-", "--format", "md,html"], "--out - prints one report format"],
    [["--events", "xml"], '--events takes ndjson, got "xml"'],
  ])("refuses %j before anything runs", async (flags, message) => {
    const cwd = docsFolder();
    const run = await runCliInProcess(["research", "q", "--docs", "notes", ...flags], {
      cwd,
      env: { HOME: cwd, DOSSIER_HOME: join(cwd, "data") },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("[INPUT_INVALID]");
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe("");
  });

  it("refuses an empty question on stdin, and - where there is no stdin", async () => {
    const cwd = docsFolder();
    const env = { HOME: cwd, DOSSIER_HOME: join(cwd, "data") };
    const empty = await runCliInProcess(["research", "-", "--docs", "notes"], { cwd, env, stdin: " \n" });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("the question read from standard input is empty");
    const none = await runCliInProcess(["research", "-", "--docs", "notes"], { cwd, env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("[INPUT_INVALID]");
  });
});

describe("readAll", () => {
  it("reads a stream to its end and refuses one past the limit", async () => {
    expect(
      await readAll(Readable.from([Buffer.from("a question "), Buffer.from("in two chunks")]), 100),
    ).toBe("a question in two chunks");
    await expect(readAll(Readable.from([Buffer.alloc(60), Buffer.alloc(60)]), 100)).rejects.toThrow(
      "more than 100 bytes",
    );
  });
});
