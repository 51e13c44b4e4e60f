/**
 * Clean terminal output: untrusted text (the question, page and model text in events, search
 * results, error messages) never reaches the terminal with live control sequences.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CliOutcome, runCliInProcess } from "../../test/cli-io.ts";
import { DossierError } from "../core/errors.ts";
import type { EventInput } from "../core/events.ts";
import { stripControlChars, terminalJson, terminalLine, terminalText } from "../core/terminal-text.ts";
import { researchRequestSchema } from "../runtime/research-request.ts";
import { createRunId } from "../runtime/run-id.ts";
import { openSqliteStore } from "../store/sqlite-store.ts";
import { formatResults } from "./commands/search.ts";
import { formatError } from "./errors.ts";
import { applyEvent, formatProgress, initialProgress } from "./progress.ts";

/** A window-title change (OSC 0 … BEL), clear screen, colours, an 8-bit CSI, a bare bell. */
const HOSTILE = "\u001b]0;pwned\u0007\u001b[2J\u001b[31mred\u001b[0m \u009b1mC1\u0007 end";
/** ESC, BEL, the other C0 controls but tab/newline, DEL and C1. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

function dossier(args: string[], cwd: string, env: Record<string, string> = {}): Promise<CliOutcome> {
  return runCliInProcess(args, { cwd, env: { HOME: cwd, DOSSIER_HOME: join(cwd, "data"), ...env } });
}

function expectClean(out: CliOutcome): void {
  expect(out.stdout).not.toMatch(CONTROL);
  expect(out.stderr).not.toMatch(CONTROL);
  expect(out.stdout).not.toContain("\u001b");
  expect(out.stdout).not.toContain("\u0007");
}

/** A stored run whose question, events and error carry terminal escapes (as an older or foreign writer might have stored them). */
function seedHostileRun(dir: string): string {
  const store = openSqliteStore({ home: join(dir, "data") });
  const id = createRunId(Date.parse("2026-11-20T10:00:00Z"));
  const ts = "2026-11-20T10:00:01.000Z";
  try {
    store.runs.create({
      id,
      query: `What changed? ${HOSTILE}`,
      strategy: "minddr",
      options: { strategy: "minddr" },
      createdAt: "2026-11-20T10:00:00.000Z",
    });
    const events: EventInput[] = [
      { type: "run-start", query: `What changed? ${HOSTILE}`, strategy: "minddr", options: {} },
      { type: "phase", phase: "search", detail: HOSTILE },
      { type: "node-start", nodeId: "T-1", nodeType: "search", title: `Aspect ${HOSTILE}` },
      { type: "tool-start", callId: "c1", tool: "web_search", provider: "searxng", args: { q: HOSTILE } },
      {
        type: "tool-end",
        callId: "c1",
        tool: "web_search",
        provider: "searxng",
        ok: true,
        cached: false,
        latencyMs: 5,
        resultCount: 1,
        note: `title ${HOSTILE}`,
      },
      { type: "source-add", source: { title: HOSTILE, url: "https://example.org" } },
      { type: "section-written", sectionId: "S1", title: HOSTILE, chars: 10, citations: 1 },
      { type: "decision", decision: "stop", reason: HOSTILE },
      { type: "warning", code: "SEARCH_FAILED", message: HOSTILE },
      { type: "node-end", nodeId: "T-1", status: "failed", summary: HOSTILE },
    ] as EventInput[];
    for (const e of events) store.events.append(id, e, ts);
    store.runs.update(id, {
      status: "failed",
      updatedAt: ts,
      finishedAt: ts,
      stopReason: HOSTILE,
      error: { code: "TOOL_ERROR", message: `page said ${HOSTILE}` },
    });
  } finally {
    store.close();
  }
  return id;
}

describe("runs list / show / events print no control sequences", () => {
  it("escapes the question, event texts and the error of a hostile run, in text and JSON modes", async () => {
    home = mkdtempSync(join(tmpdir(), "dossier-term-"));
    const id = seedHostileRun(home);

    const list = await dossier(["runs", "list"], home);
    expect(list.code).toBe(0);
    expectClean(list);
    expect(list.stdout).toContain(id);
    expect(list.stdout).toContain("\\x1b]0;pwned\\x07");

    const show = await dossier(["runs", "show", id], home);
    expect(show.code).toBe(0);
    expectClean(show);
    expect(show.stdout).toContain("query     What changed? \\x1b]0;pwned\\x07\\x1b[2J\\x1b[31mred");
    expect(show.stdout).toContain("error     [TOOL_ERROR] page said \\x1b]0;pwned");

    const events = await dossier(["runs", "events", id], home);
    expect(events.code).toBe(0);
    expectClean(events);
    // One line per event: the escapes did not add or remove lines.
    expect(events.stdout.trim().split("\n")).toHaveLength(10);
    expect(events.stdout).toContain("\\x1b[2J");

    for (const args of [
      ["runs", "list", "--json"],
      ["runs", "show", id, "--json"],
      ["runs", "events", id, "--json"],
    ]) {
      const out = await dossier(args, home);
      expect(out.code).toBe(0);
      expectClean(out);
      // Still valid JSON, with the text intact once parsed.
      const first = JSON.parse(out.stdout.trim().split("\n")[0]!) as unknown;
      expect(JSON.stringify(first)).toContain("pwned");
    }
  });

  it("cleans a question with control characters before it is stored, so runs list shows none", async () => {
    home = mkdtempSync(join(tmpdir(), "dossier-term-"));
    const docs = join(home, "notes");
    mkdirSync(docs);
    writeFileSync(
      join(docs, "resume.md"),
      `# Resume ${HOSTILE}\n\nEvery completed model call is stored in the run's journal under a key ${HOSTILE}.\n\nA resumed run replays the stored answers in order.\n`,
    );
    const run = await dossier(
      ["research", `How does a run\tresume? ${HOSTILE}`, "--docs", docs, "--json", "--out", "report"],
      home,
    );
    expect(run.code).toBe(0);
    expectClean(run);
    const summary = JSON.parse(run.stdout.trim()) as { runId: string };

    const store = openSqliteStore({ home: join(home, "data") });
    try {
      const record = (await store.runs.get(summary.runId))!;
      expect(record.query).toBe("How does a run\tresume? red C1 end");
      const start = (await store.events.list(summary.runId, { types: ["run-start"] }))[0];
      expect(start?.type === "run-start" && start.query).toBe("How does a run\tresume? red C1 end");
    } finally {
      store.close();
    }
    for (const args of [
      ["runs", "list"],
      ["runs", "show", summary.runId],
      ["runs", "events", summary.runId],
    ]) {
      const out = await dossier(args, home);
      expect(out.code).toBe(0);
      expectClean(out);
    }
  });

  it("refuses a question that is nothing but control characters", () => {
    const parsed = researchRequestSchema.safeParse({ query: "\u001b[2J\u0007\u001b]0;x\u0007" });
    expect(parsed.success).toBe(false);
    expect(researchRequestSchema.parse({ query: `Why?\n${HOSTILE}` }).query).toBe("Why?\nred C1 end");
  });
});

describe("print sites", () => {
  it("the progress line shows a hostile phase detail escaped", () => {
    const state = applyEvent(initialProgress(), {
      type: "phase",
      phase: "search",
      detail: HOSTILE,
      runId: "r",
      seq: 1,
      ts: "2026-11-20T10:00:00.000Z",
    } as never);
    const line = formatProgress(state);
    expect(line).not.toMatch(CONTROL);
    expect(line).toContain("\\x1b]0;pwned\\x07");
  });

  it("search results show hostile titles, URLs and snippets escaped, one line each", () => {
    const out = formatResults([
      {
        title: `T ${HOSTILE}`,
        url: `https://example.org/${HOSTILE}`,
        snippet: `line one\n${HOSTILE}`,
      } as never,
    ]);
    expect(out).not.toMatch(CONTROL);
    expect(out.trim().split("\n")).toHaveLength(3);
  });

  it("error messages are one escaped line; --debug keeps newlines but no control sequence", () => {
    const error = new DossierError("TOOL_ERROR", `fetch failed: ${HOSTILE}\nsecond line`);
    const line = formatError(error, false);
    expect(line).not.toMatch(CONTROL);
    expect(line.trim().split("\n")).toHaveLength(1);
    const debug = formatError(error, true);
    expect(debug).not.toMatch(CONTROL);
    expect(debug.split("\n").length).toBeGreaterThan(2);
  });
});

describe("terminal text", () => {
  it("escapes C0, DEL and C1 controls; keeps tabs and newlines in multi-line text", () => {
    expect(terminalText("a\tb\r\nc\u001b[2Jd\u0007\u007f\u0085")).toBe("a\tb\nc\\x1b[2Jd\\x07\\x7f\\x85");
    expect(terminalLine("a\tb\r\n  c\u001b]0;t\u0007")).toBe("a b c\\x1b]0;t\\x07");
    expect(terminalLine("plain text, café 日本")).toBe("plain text, café 日本");
  });

  it("strips whole escape sequences from stored text", () => {
    expect(stripControlChars(HOSTILE)).toBe("red C1 end");
    expect(stripControlChars("keep\ttabs\r\nand lines\u0000")).toBe("keep\ttabs\nand lines");
    // An unterminated OSC string loses only its introducer, not the rest of the text.
    expect(stripControlChars("a\u001b]0;title without end")).toBe("a0;title without end");
  });

  it("JSON for a terminal stays valid and escapes DEL, C1 and line separators", () => {
    const text = terminalJson({ t: "\u001b\u0085\u009b\u2028x" });
    expect(text).toBe('{"t":"\\u001b\\u0085\\u009b\\u2028x"}');
    expect(JSON.parse(text)).toEqual({ t: "\u001b\u0085\u009b\u2028x" });
  });

  it("shows bidirectional overrides and isolates escaped on a terminal, and keeps them in stored text", () => {
    // "Trojan Source": a right-to-left override makes the terminal show "txt.exe" as "exe.txt".
    const tricky = "report\u202eexe.txt \u2066isolated\u2069";
    expect(terminalLine(tricky)).toBe("report\\u202eexe.txt \\u2066isolated\\u2069");
    expect(terminalText(`${tricky}\nnext`)).toBe("report\\u202eexe.txt \\u2066isolated\\u2069\nnext");
    const json = terminalJson({ t: tricky });
    expect(json).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(json)).toEqual({ t: tricky });
    // Right-to-left writing may use them legitimately: a stored record keeps them.
    expect(stripControlChars(tricky)).toBe(tricky);
    // Hebrew and Arabic letters themselves are text, not controls.
    expect(terminalLine("שלום مرحبا")).toBe("שלום مرحبا");
  });
});
