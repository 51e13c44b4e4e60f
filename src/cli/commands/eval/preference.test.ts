import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recordingIo } from "../../../../test/cli-io.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  startFakeOpenAI,
} from "../../../../test/fake-openai/index.ts";
import { runCli } from "../../program.ts";

let cwd: string;
let server: FakeOpenAI | undefined;

beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-pref-cli-")));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  fs.rmSync(cwd, { recursive: true, force: true });
});

const fakeIo = (env: Record<string, string | undefined> = {}) => recordingIo({ cwd, env });

const write = (name: string, lines: unknown[]) =>
  fs.writeFileSync(join(cwd, name), lines.map((l) => JSON.stringify(l)).join("\n"));

describe("dossier eval preference", () => {
  it("computes accuracy, AUC and Cohen's d from a scores file", async () => {
    // Δ = 0.3, 0.1, 0, −0.2, 0.3 → accuracy 60%, AUC 70%, mean 0.1, sd √0.045, d 0.471.
    write("s.jsonl", [
      { id: "q1", preferred: 0.8, rejected: 0.5 },
      { id: "q2", preferred: 0.6, rejected: 0.5 },
      { id: "q3", preferred: 0.4, rejected: 0.4 },
      { id: "q4", preferred: 0.3, rejected: 0.5 },
      { id: "q5", preferred: 0.9, rejected: 0.6 },
      { id: "q6", preferred: null, rejected: 0.1 },
    ]);
    const io = fakeIo();
    expect(await runCli(["eval", "preference", "--scores", "s.jsonl"], io)).toBe(0);
    expect(io.stderr).toBe("");
    expect(io.stdout).toMatch(/^\s*5\s+1\s+3\s+1\s+1\s+60\.0%\s+70\.0%\s+0\.100\s+0\.212\s+0\.471$/m);
  });

  it("scores triples with the pairwise judge and writes a scores file", async () => {
    server = await startFakeOpenAI({
      handler: (request: RecordedRequest) => {
        const text = JSON.stringify(request.body);
        // The preferred report is "GOOD"; the judge always picks it.
        const goodIsA = text.indexOf("report_A>\\nGOOD") >= 0;
        return { kind: "text", text: JSON.stringify({ reason: "r", winner: goodIsA ? "A" : "B" }) };
      },
    });
    write("t.jsonl", [
      { id: "q1", query: "Q one", preferred: "GOOD one", rejected: "BAD one" },
      { id: "q2", query: "Q two", preferred: "GOOD two", rejected: "BAD two" },
    ]);
    const io = fakeIo({ DOSSIER_MODEL: "openai-compatible:judge", DOSSIER_BASE_URL: server.url });
    const code = await runCli(
      [
        "eval",
        "preference",
        "--triples",
        "t.jsonl",
        "--scorer",
        "pairwise",
        "--out",
        "scores.jsonl",
        "--json",
      ],
      io,
    );
    expect(io.stderr).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(io.stdout)).toMatchObject({ scorer: "pairwise", n: 2, wins: 2, accuracy: 1, auc: 1 });
    expect(server.requests).toHaveLength(4);
    expect(fs.readFileSync(join(cwd, "scores.jsonl"), "utf8")).toBe(
      '{"id":"q1","preferred":1,"rejected":0}\n{"id":"q2","preferred":1,"rejected":0}\n',
    );
  });

  it("refuses an unknown scorer and missing inputs with exit code 2", async () => {
    const io = fakeIo();
    expect(await runCli(["eval", "preference", "--triples", "t.jsonl", "--scorer", "vibes"], io)).toBe(2);
    expect(io.stderr).toContain("--scorer must be one of rubric, pointwise, pairwise");
    const none = fakeIo();
    expect(await runCli(["eval", "preference"], none)).toBe(2);
  });
});
