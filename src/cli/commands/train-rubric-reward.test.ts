/**
 * `dossier train rubric-reward` against a loopback judge model: generated rubrics scored with
 * the rubric-generator reward (R_pref + R_llm + R_fmt, rubrics paper §3.3), a completion that is
 * no rubric scored −2 with no judge call, each row's completions given their group advantage;
 * bad input refused before any judge call.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../../test/cli-io.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/fake-openai/index.ts";
import type { RecordedRequest, Reply } from "../../../test/fake-openai/types.ts";
import { RUBRIC_JUDGE_SYSTEM } from "../../eval/rubric/rubric-prompts.ts";
import { grpoAdvantages } from "../../train/advantages/grpo.ts";
import { RUBRIC_QUALITY_MARKER } from "../../train/judges/rubric-quality.ts";

let model: FakeOpenAI | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await model?.close();
  model = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "dossier-rubric-reward-"));
  dirs.push(dir);
  return dir;
};

const text = (request: RecordedRequest) =>
  (request.body as { messages: { content: unknown }[] }).messages
    .map((m) => JSON.stringify(m.content))
    .join("\n");

/** The judge: a report marked GOOD matches every criterion, the other hardly; every rubric rates 3. */
function judge(request: RecordedRequest): Reply {
  const prompt = text(request);
  if (prompt.includes(RUBRIC_QUALITY_MARKER))
    return { kind: "text", text: JSON.stringify({ rationale: "specific", score: 3 }) };
  if (prompt.includes(RUBRIC_JUDGE_SYSTEM.slice(0, 60))) {
    const rating = prompt.includes("GOOD REPORT") ? 9 : 2;
    return { kind: "text", text: JSON.stringify({ reason: "as marked", rating }) };
  }
  return { kind: "error", status: 400 };
}

const rubric = (n: number) =>
  JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      title: `Criterion ${i + 1}`,
      description: "names the cause",
      weight: 1,
    })),
  );

function files(dir: string) {
  const rows = [
    {
      id: "q1",
      query: "Why did the bridge close?",
      accepted: "GOOD REPORT: corrosion.",
      rejected: "A guess.",
    },
    {
      id: "q2",
      query: "Who funds the museum?",
      accepted: "GOOD REPORT: the city.",
      rejected: "Nobody knows.",
    },
  ];
  writeFileSync(join(dir, "prefs.jsonl"), rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  const completions = [
    { id: "q1", completion: rubric(2) },
    { id: "q1", completion: "I would check whether the report is good." },
    { id: "q1", completion: `<think>short</think>\n${rubric(1)}` },
    { id: "q2", completion: rubric(1) },
  ];
  writeFileSync(join(dir, "gen.jsonl"), completions.map((c) => `${JSON.stringify(c)}\n`).join(""));
}

async function cli(dir: string, args: string[]) {
  return runCliInProcess(["train", "rubric-reward", ...args], {
    cwd: dir,
    env: {
      HOME: dir,
      DOSSIER_HOME: dir,
      DOSSIER_MODEL: "openai-compatible:judge-model",
      DOSSIER_BASE_URL: model!.url,
      DOSSIER_API_KEY: "sk-test",
    },
  });
}

describe("dossier train rubric-reward", () => {
  it("scores each generated rubric (R_pref + R_llm, R_fmt −1 without a judge call) with its row's group advantage", async () => {
    model = await startFakeOpenAI({ handler: judge });
    const dir = tempDir();
    files(dir);
    const run = await cli(dir, ["prefs.jsonl", "gen.jsonl", "--out", "r.jsonl", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const records = readFileSync(join(dir, "r.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as {
            id: string;
            index: number;
            reward: number;
            components: object;
            advantage: number | null;
          },
      );
    expect(records.map((r) => [r.id, r.index, r.reward, r.components])).toEqual([
      ["q1", 0, 4, { pref: 1, llm: 3, fmt: 0 }],
      ["q1", 1, -2, { pref: -1, llm: 0, fmt: -1 }],
      ["q1", 2, 4, { pref: 1, llm: 3, fmt: 0 }],
      ["q2", 0, 4, { pref: 1, llm: 3, fmt: 0 }],
    ]);
    expect(records.slice(0, 3).map((r) => r.advantage)).toEqual(grpoAdvantages([4, -2, 4]));
    expect(records[3]!.advantage).toBeNull();
    // 2 items × 2 reports + 1 quality, 1 × 2 + 1, 1 × 2 + 1; nothing for the completion that is no rubric.
    expect(model.requests).toHaveLength(11);
    expect(JSON.parse(run.stdout)).toMatchObject({ completions: 4, rows: 2, malformed: 1, judgeCalls: 11 });
  });

  it("refuses a completion for a row the preference file lacks, and a bad flag, before any judge call", async () => {
    model = await startFakeOpenAI({ handler: judge });
    const dir = tempDir();
    files(dir);
    writeFileSync(join(dir, "stray.jsonl"), `${JSON.stringify({ id: "q9", completion: rubric(1) })}\n`);
    const stray = await cli(dir, ["prefs.jsonl", "stray.jsonl"]);
    expect(stray.code).not.toBe(0);
    expect(stray.stderr).toMatch(/rows not in the preference file: q9/);
    const flag = await cli(dir, ["prefs.jsonl", "gen.jsonl", "--lambdas", "1"]);
    expect(flag.stderr).toMatch(/--lambdas takes/);
    expect(model.requests).toHaveLength(0);
  });
});
