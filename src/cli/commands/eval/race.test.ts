/**
 * `dossier eval race` in-process: summaries, recomputation from stored judgments, and the full
 * protocol against a loopback OpenAI-compatible judge.
 */

import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { benchmarkPath, haveBenchmarkFile } from "../../../../test/benchmarks.ts";
import { type CliOutcome, runCliInProcess } from "../../../../test/cli-io.ts";
import { startFakeOpenAI } from "../../../../test/fake-openai/server.ts";
import type { RecordedRequest, Reply } from "../../../../test/fake-openai/types.ts";
import { raceCriteria as criteria, raceJudgment as judgment } from "../../../eval/race/test-fixtures.ts";

const RESULTS = benchmarkPath("deepresearch_bench/results/race/claude-3-7-sonnet-latest");
const HAVE_RESULTS = haveBenchmarkFile(
  join(RESULTS, "raw_results.jsonl"),
  "dossier eval race --summarize against the published results",
);

let cwd: string;
beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-race-")));
});
afterEach(() => {
  fs.rmSync(cwd, { recursive: true, force: true });
});

/** Runs `dossier <args>` in-process with a minimal environment plus `env`. */
function dossier(args: string[], env: Record<string, string> = {}): Promise<CliOutcome> {
  return runCliInProcess(args, { cwd, env: { HOME: cwd, ...env } });
}

const writeJsonl = (name: string, rows: unknown[]) => {
  fs.writeFileSync(join(cwd, name), rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  return join(cwd, name);
};

// Task A: shares 0.6, 0.5, 0.8, 0.3; T = 0.25·22 vs 0.25·18 → overall 0.55.
// Task B: shares 0.9, 0.2, 0.5, 0.7; T = 0.25·23 vs 0.25·17 → overall 0.575.
// Means over the two: 0.75, 0.35, 0.65, 0.5, overall 0.5625; a third task fails.
const JUDGMENTS: Record<string, ReturnType<typeof judgment>> = {
  "Task A": judgment([6, 4], [5, 5], [8, 2], [3, 7]),
  "Task B": judgment([9, 1], [2, 8], [5, 5], [7, 3]),
};
const EXPECTED_TABLE = [
  "RACE",
  "  Comprehensiveness:      0.7500",
  "  Insight:                0.3500",
  "  Instruction Following:  0.6500",
  "  Readability:            0.5000",
  "  Overall Score:          0.5625",
  "  Tasks scored:           2",
  "  Tasks failed:           1",
  "",
].join("\n");

describe("dossier eval race --summarize", () => {
  it.skipIf(!HAVE_RESULTS)("reproduces race_result.txt of the benchmark's published results", async () => {
    const r = await dossier(["eval", "race", "--summarize", join(RESULTS, "raw_results.jsonl")]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const expected = fs
      .readFileSync(join(RESULTS, "race_result.txt"), "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split(": ") as [string, string]);
    expect(expected.map(([label]) => label)).toEqual([
      "Comprehensiveness",
      "Insight",
      "Instruction Following",
      "Readability",
      "Overall Score",
    ]);
    for (const [label, value] of expected)
      expect(r.stdout).toMatch(new RegExp(`^  ${label}:\\s+${value}$`, "m"));
    expect(r.stdout).toMatch(/^ {2}Overall Score:\s+0\.4218$/m);
    expect(r.stdout).toMatch(/^ {2}Tasks scored:\s+100$/m);
    expect(r.stdout).toMatch(/^ {2}Tasks failed:\s+0$/m);
  });
});

describe("dossier eval race --judgments", () => {
  it("recomputes every score from stored judge outputs, printing a table or one JSON object", async () => {
    const c = writeJsonl("criteria.jsonl", [
      criteria(1, "Task A"),
      criteria(2, "Task B"),
      criteria(3, "Task C"),
    ]);
    const j = writeJsonl("judgments.jsonl", [
      { id: 1, prompt: "Task A", judgment: JUDGMENTS["Task A"] },
      { id: 2, prompt: "Task B", judgment: JUDGMENTS["Task B"] },
      { id: 3, prompt: "Task C", judgment: null, error: "judge failed" },
    ]);
    const table = await dossier(["eval", "race", "--criteria", c, "--judgments", j, "--out", "out"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toBe(EXPECTED_TABLE);
    expect(table.stderr).toBe("race: task 3 failed: judge failed\n");
    expect(fs.readFileSync(join(cwd, "out/race_result.txt"), "utf8")).toBe(
      "Comprehensiveness: 0.7500\nInsight: 0.3500\nInstruction Following: 0.6500\nReadability: 0.5000\nOverall Score: 0.5625\n",
    );
    const rows = fs
      .readFileSync(join(cwd, "out/raw_results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows[0]).toEqual({
      id: 1,
      prompt: "Task A",
      comprehensiveness: 0.6,
      insight: 0.5,
      instruction_following: 0.8,
      readability: 0.3,
      overall_score: 0.55,
    });
    expect(rows[2]).toEqual({ id: 3, prompt: "Task C", error: "judge failed" });

    const json = await dossier(["eval", "race", "--criteria", c, "--judgments", j, "--json"]);
    const parsed = JSON.parse(json.stdout) as Record<string, number>;
    expect(Object.keys(parsed)).toEqual([
      "overall",
      "comprehensiveness",
      "insight",
      "instruction_following",
      "readability",
      "tasks",
      "failed",
    ]);
    expect(parsed.overall).toBeCloseTo(0.5625, 12);
    expect(parsed.insight).toBeCloseTo(0.35, 12);
    expect([parsed.tasks, parsed.failed]).toEqual([2, 1]);
  });

  it("rejects mixing the forms with a usage error", async () => {
    const r = await dossier(["eval", "race", "--summarize", "x.jsonl", "--criteria", "c.jsonl"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^dossier: error \[INPUT_INVALID\]: --summarize takes no other input file/);
  });
});

/** The text of a chat message (a string or text parts). */
function text(content: unknown): string {
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? "").join("") : "";
}

describe("dossier eval race (full protocol)", () => {
  it("cleans, judges over the OpenAI-compatible API, re-asks an unparsable answer and counts failures", async () => {
    const seen: string[] = [];
    const server = await startFakeOpenAI({
      handler: (request: RecordedRequest): Reply => {
        const body = request.body as { model: string; messages: Array<{ role: string; content: unknown }> };
        seen.push(body.model);
        const users = body.messages.filter((m) => m.role === "user").map((m) => text(m.content));
        const first = users[0]!;
        const article = /<article>\n([\s\S]*)\n<\/article>/.exec(first);
        if (article) {
          const cleaned = article[1]!.split("\n\n## References")[0]!.replace(/\s*\[\d+\]/g, "");
          return { kind: "text", text: cleaned };
        }
        const task = /<task>\n([\s\S]*?)\n<\/task>/.exec(first)![1]!;
        if (task === "Task B" && users.length === 1)
          return { kind: "text", text: "Article 1 is better overall." };
        return { kind: "text", text: JSON.stringify(JUDGMENTS[task]) };
      },
    });
    try {
      const report = (name: string) =>
        `# Report ${name}\n\nRice prices rose sharply after the drought, and the government released reserves to calm the market [1]. Stocks fell to a decade low by December [2].\n\n## References\n\n1. Ministry. <https://example.org/${name}/1>\n2. Note. <https://example.org/${name}/2>`;
      const c = writeJsonl("criteria.jsonl", [
        criteria(1, "Task A"),
        criteria(2, "Task B"),
        criteria(3, "Task C"),
      ]);
      const q = writeJsonl(
        "query.jsonl",
        ["Task A", "Task B", "Task C"].map((prompt, i) => ({
          id: i + 1,
          topic: "t",
          language: "en",
          prompt,
        })),
      );
      const t = writeJsonl(
        "target.jsonl",
        ["A", "B", "C"].map((n, i) => ({ id: i + 1, prompt: `Task ${n}`, article: report(n) })),
      );
      const r = writeJsonl("reference.jsonl", [
        { id: 1, prompt: "Task A", article: "Reference report A." },
        { id: 2, prompt: "Task B", article: "Reference report B." },
      ]);
      const env = { DOSSIER_MODEL: "openai-compatible:judge", DOSSIER_BASE_URL: server.url };
      const run = await dossier(
        [
          "eval",
          "race",
          "--criteria",
          c,
          "--queries",
          q,
          "--target",
          t,
          "--reference",
          r,
          "--out",
          "out",
          "--concurrency",
          "2",
        ],
        env,
      );
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${EXPECTED_TABLE}  Judge: openai-compatible:judge; unparsable answers: 1\n`);
      expect(run.stderr).toContain(
        "race: task 3 failed (join): reference article not found for this prompt\n",
      );
      // 2 cleaning calls, 2 judge calls and 1 re-ask; every call to the judge model.
      expect(server.requests.length).toBe(5);
      expect(new Set(seen)).toEqual(new Set(["judge"]));
      const judgeA = server.requests
        .map((req) => JSON.stringify(req.body))
        .find((b) => b.includes("<task>\\nTask A\\n</task>"))!;
      expect(judgeA).not.toContain("[1]");
      expect(judgeA).not.toContain('\\"weight\\"');

      const stored = fs
        .readFileSync(join(cwd, "out/judgments.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(stored.map((l: { id: number; judgment: unknown }) => [l.id, l.judgment === null])).toEqual([
        [1, false],
        [2, false],
        [3, true],
      ]);
      expect(stored[1].judgment).toEqual(JUDGMENTS["Task B"]);
      expect(fs.readFileSync(join(cwd, "out/race_result.txt"), "utf8")).toContain("Overall Score: 0.5625\n");
      const cleaned = fs.readFileSync(join(cwd, "out/cleaned.jsonl"), "utf8").trim().split("\n");
      expect(cleaned).toHaveLength(2);

      // The stored judgments recompute to the same figures without a model.
      const again = await dossier([
        "eval",
        "race",
        "--criteria",
        c,
        "--judgments",
        join(cwd, "out/judgments.jsonl"),
      ]);
      expect(again.stdout).toBe(EXPECTED_TABLE);

      // --judge overrides the configured model.
      seen.length = 0;
      const other = await dossier(
        [
          "eval",
          "race",
          "--criteria",
          c,
          "--target",
          t,
          "--reference",
          r,
          "--skip-cleaning",
          "--judge",
          "openai-compatible:other",
          "--json",
        ],
        env,
      );
      expect(other.code).toBe(0);
      expect(JSON.parse(other.stdout)).toMatchObject({ tasks: 2, failed: 1 });
      expect(new Set(seen)).toEqual(new Set(["other"]));
    } finally {
      await server.close();
    }
  });

  it("generates criteria for new queries with `race criteria`", async () => {
    const weights = { comprehensiveness: 0.3, insight: 0.3, instruction_following: 0.25, readability: 0.15 };
    const server = await startFakeOpenAI({
      handler: (request: RecordedRequest): Reply => {
        const body = request.body as { messages: Array<{ role: string; content: unknown }> };
        const prompt = text(body.messages.filter((m) => m.role === "user").at(-1)!.content);
        if (prompt.includes("how much each dimension should weigh"))
          return { kind: "text", text: JSON.stringify(weights) };
        const dim = /criteria for the (.+?) dimension/.exec(prompt)![1]!;
        return {
          kind: "text",
          text: JSON.stringify([{ criterion: `${dim} check`, explanation: "e", weight: 1 }]),
        };
      },
    });
    try {
      const q = writeJsonl("query.jsonl", [{ id: 9, topic: "t", language: "en", prompt: "New task" }]);
      const run = await dossier(
        ["eval", "race", "criteria", "--queries", q, "--out", "criteria.jsonl", "--samples", "2"],
        {
          DOSSIER_MODEL: "openai-compatible:judge",
          DOSSIER_BASE_URL: server.url,
        },
      );
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^ {2}Generated:\s+1$/m);
      expect(run.stdout).toMatch(/^ {2}Failed:\s+0$/m);
      // 2 weight samples + 4 dimensions
      expect(server.requests).toHaveLength(6);
      const written = JSON.parse(fs.readFileSync(join(cwd, "criteria.jsonl"), "utf8"));
      expect(written).toEqual({
        id: 9,
        prompt: "New task",
        dimension_weight: weights,
        criterions: {
          comprehensiveness: [{ criterion: "Comprehensiveness check", explanation: "e", weight: 1 }],
          insight: [{ criterion: "Insight check", explanation: "e", weight: 1 }],
          instruction_following: [{ criterion: "Instruction Following check", explanation: "e", weight: 1 }],
          readability: [{ criterion: "Readability check", explanation: "e", weight: 1 }],
        },
      });
    } finally {
      await server.close();
    }
  });

  it("needs a judge model", async () => {
    const c = writeJsonl("criteria.jsonl", [criteria(1, "Task A")]);
    const t = writeJsonl("target.jsonl", [{ id: 1, prompt: "Task A", article: "x" }]);
    const r = await dossier(["eval", "race", "--criteria", c, "--target", t, "--reference", t]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^dossier: error \[MODEL_NOT_CONFIGURED\]: no model configured for role "judge"/,
    );
  });
});
