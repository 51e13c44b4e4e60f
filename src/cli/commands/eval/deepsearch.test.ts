import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BENCHMARKS_DIR, haveBenchmarkFile } from "../../../../test/benchmarks.ts";
import { recordingIo } from "../../../../test/cli-io.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  startFakeOpenAI,
} from "../../../../test/fake-openai/index.ts";
import { xbenchPath } from "../../../eval/deepsearch/xbench.ts";
import { runCli } from "../../program.ts";

const benchmarks = BENCHMARKS_DIR;
const HAVE_XBENCH = haveBenchmarkFile(
  xbenchPath(benchmarks, "2510"),
  "dossier eval deepsearch --xbench 2510",
);

let cwd: string;
let server: FakeOpenAI | undefined;

beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-ds-cli-")));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  fs.rmSync(cwd, { recursive: true, force: true });
});

const fakeIo = (env: Record<string, string | undefined>) => recordingIo({ cwd, env });

/** Correct when the response contains the reference answer. */
function equivalence(request: RecordedRequest) {
  const text = JSON.stringify(request.body);
  const reference = /<reference_answer>\\n(.*?)\\n<\/reference_answer>/.exec(text)?.[1] ?? "?";
  const response = /<response>\\n(.*?)\\n<\/response>/.exec(text)?.[1] ?? "";
  const judgement = response.includes(reference) ? "correct" : "incorrect";
  return { kind: "text" as const, text: JSON.stringify({ rationale: "compared", judgement }) };
}

describe("dossier eval deepsearch", () => {
  it("judges answers and prints pass@1", async () => {
    server = await startFakeOpenAI({ handler: equivalence });
    const lines = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join("\n");
    fs.writeFileSync(
      join(cwd, "q.jsonl"),
      lines([
        { id: 1, question: "Year?", answer: "1998" },
        { id: 2, question: "City?", answer: "Paris" },
        { id: 3, question: "Name?", answer: "Ada" },
      ]),
    );
    fs.writeFileSync(
      join(cwd, "a.jsonl"),
      lines([
        { id: "1", answer: "It was 1998." },
        { id: "2", response: "Lyon" },
      ]),
    );
    const io = fakeIo({ DOSSIER_MODEL: "openai-compatible:judge", DOSSIER_BASE_URL: server.url });
    const code = await runCli(
      ["eval", "deepsearch", "--questions", "q.jsonl", "--answers", "a.jsonl", "--out", "d.jsonl"],
      io,
    );
    expect(io.stderr).toBe("");
    expect(code).toBe(0);
    expect(io.stdout).toMatch(/^\s*3\s+2\s+1\s+2\s+0\s+33\.3%$/m);
    const details = fs
      .readFileSync(join(cwd, "d.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: string; judgement: string });
    expect(details.map((d) => [d.id, d.judgement])).toEqual([
      ["1", "correct"],
      ["2", "incorrect"],
      ["3", "unanswered"],
    ]);
  });

  it.skipIf(!HAVE_XBENCH)("loads xbench 2510 with --xbench", async () => {
    server = await startFakeOpenAI({ handler: equivalence });
    fs.writeFileSync(join(cwd, "a.jsonl"), `${JSON.stringify({ id: "101", answer: "none" })}\n`);
    const io = fakeIo({ DOSSIER_MODEL: "openai-compatible:judge", DOSSIER_BASE_URL: server.url });
    const code = await runCli(
      [
        "eval",
        "deepsearch",
        "--xbench",
        "2510",
        "--benchmarks",
        benchmarks,
        "--answers",
        "a.jsonl",
        "--json",
      ],
      io,
    );
    expect(io.stderr).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(io.stdout)).toMatchObject({
      questions: 100,
      answered: 1,
      unanswered: 99,
      judgeFailures: 0,
    });
    expect(server.requests).toHaveLength(1);
  });
});
