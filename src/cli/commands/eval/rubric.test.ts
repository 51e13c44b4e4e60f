/**
 * `dossier eval rubric` in-process against a loopback OpenAI-compatible judge.
 */

import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliOutcome, runCliInProcess } from "../../../../test/cli-io.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  type Reply,
  startFakeOpenAI,
} from "../../../../test/fake-openai/index.ts";
import type { QueryRubric } from "../../../eval/rubric/rubric-types.ts";

let cwd: string;
let server: FakeOpenAI | undefined;

beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-rubric-")));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  fs.rmSync(cwd, { recursive: true, force: true });
});

/** Runs `dossier <args>` in-process with a minimal environment plus `env`. */
function dossier(args: string[], env: Record<string, string>): Promise<CliOutcome> {
  return runCliInProcess(args, { cwd, env: { HOME: cwd, ...env } });
}

const rubric: QueryRubric = {
  query: "Compare LFP and NMC batteries for EVs",
  items: [
    {
      title: "Both chemistries",
      description: "Key Criterion: Covers LFP and NMC.",
      weight: 5,
      category: "key",
    },
    {
      title: "Cost figures",
      description: "Important Criterion: Gives cost per kWh.",
      weight: 3,
      category: "important",
    },
    {
      title: "Comparison table",
      description: "Optional Criterion: Uses a comparison table.",
      weight: 1,
      category: "optional",
    },
    {
      title: "Outdated data",
      description: "Error Criterion: Relies on outdated figures.",
      weight: -2,
      category: "error",
    },
  ],
};

/** Ratings per (report marker, criterion); the cost item of report A first answers unparsably. */
const RATINGS: Record<string, Record<string, number>> = {
  "REPORT-A": { "Covers LFP": 10, "cost per kWh": 4, "comparison table": 1, "outdated figures": 7 },
  "REPORT-B": { "Covers LFP": 7, "cost per kWh": 7, "comparison table": 10, "outdated figures": 1 },
};

function userText(request: RecordedRequest): string {
  const messages = (request.body as { messages: Array<{ role: string; content: string }> }).messages;
  return messages
    .filter((m) => m.role === "user")
    .map((m) => m.content)
    .join("\n");
}

function judge(request: RecordedRequest): Reply {
  const messages = (request.body as { messages: unknown[] }).messages;
  const text = userText(request);
  const report = Object.keys(RATINGS).find((r) => text.includes(r))!;
  const criterion = Object.keys(RATINGS[report]!).find((c) => text.includes(c))!;
  if (report === "REPORT-A" && criterion === "cost per kWh" && messages.length <= 2) {
    return { kind: "text", text: "I would say a four, more or less." };
  }
  return {
    kind: "text",
    text: JSON.stringify({ reason: `rated ${criterion}`, rating: RATINGS[report]![criterion] }),
  };
}

describe("dossier eval rubric score", () => {
  it("scores a report end to end against an OpenAI-compatible server, re-asking one unparsable answer", async () => {
    server = await startFakeOpenAI({ handler: judge });
    fs.writeFileSync(join(cwd, "r.json"), JSON.stringify(rubric));
    fs.writeFileSync(join(cwd, "a.md"), "# A\n\nREPORT-A about batteries.");
    const env = { DOSSIER_MODEL: "openai-compatible:judge", DOSSIER_BASE_URL: server.url };
    const result = await dossier(
      [
        "eval",
        "rubric",
        "score",
        "--rubric",
        "r.json",
        "--report",
        "a.md",
        "--out",
        "details.jsonl",
        "--concurrency",
        "4",
      ],
      env,
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    // Divided by Σw = 7 (the default): (5·1 + 3·(1/3) + 1·0 − 2·(2/3)) / 7 = 2/3; min −2/7, max 9/7.
    expect(result.stdout).toMatch(/^a\.md\s+0\.667\s+-0\.286\s+1\.286\s+4\/4\s+0$/m);
    expect(result.stdout).toMatch(/^4\s+error\s+-2\s+Outdated data\s+7$/m);
    expect(result.stdout).toContain(
      "judge openai-compatible:judge: 4 judgements, 0 failed, 5 calls, 1 unparsable answers re-asked",
    );
    expect(server.requests.filter((r) => r.path === "/v1/chat/completions")).toHaveLength(5);
    expect(server.unexpected).toEqual([]);
    const lines = fs
      .readFileSync(join(cwd, "details.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(5);
    expect(lines[1]).toMatchObject({
      kind: "item",
      report: "a.md",
      title: "Cost figures",
      rating: 4,
      calls: 2,
      formatErrors: 1,
    });
    expect(lines[4]).toMatchObject({ kind: "report", report: "a.md", rated: 4, failed: 0, complete: true });
    expect(lines[4]!.score as number).toBeCloseTo(2 / 3, 10);
  });

  it("--compare scores two reports and names the better one; --json prints one line; --denominator abs-sum", async () => {
    server = await startFakeOpenAI({ handler: judge });
    fs.writeFileSync(join(cwd, "r.json"), JSON.stringify(rubric));
    fs.writeFileSync(join(cwd, "a.md"), "REPORT-A");
    fs.writeFileSync(join(cwd, "b.md"), "REPORT-B");
    const env = { DOSSIER_MODEL: "openai-compatible:judge", DOSSIER_BASE_URL: server.url };
    const result = await dossier(
      [
        "eval",
        "rubric",
        "score",
        "--rubric",
        "r.json",
        "--compare",
        "a.md",
        "b.md",
        "--json",
        "--denominator",
        "abs-sum",
      ],
      env,
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]!) as {
      better: string;
      reports: Array<{ name: string; score: number }>;
      counts: { total: number };
    };
    // Divided by Σ|w| = 11: b (5·(2/3) + 3·(2/3) + 1·1 − 0) / 11 = 19/33; a 14/33.
    expect(summary.reports.map((r) => r.name)).toEqual(["a.md", "b.md"]);
    expect(summary.reports[0]!.score).toBeCloseTo(14 / 33, 10);
    expect(summary.reports[1]!.score).toBeCloseTo(19 / 33, 10);
    expect(summary.better).toBe("b.md");
    expect(summary.counts.total).toBe(8);
  });

  it("fails with one line and exit code 2 without a judge model", async () => {
    fs.writeFileSync(join(cwd, "r.json"), JSON.stringify(rubric));
    fs.writeFileSync(join(cwd, "a.md"), "x");
    const result = await dossier(["eval", "rubric", "score", "--rubric", "r.json", "--report", "a.md"], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dossier: error \[MODEL_NOT_CONFIGURED\]: .*DOSSIER_MODEL/);
  });
});

describe("dossier eval rubric generate", () => {
  it("writes a repaired rubric that score accepts", async () => {
    const items = [
      ...Array.from({ length: 6 }, (_, i) => ({
        title: `Aspect ${i + 1}`,
        description: `Key Criterion: Covers aspect ${i + 1}.`,
        weight: 5,
      })),
      { title: "Stale data", description: "Error Criterion: Uses stale data.", weight: 2 },
    ];
    server = await startFakeOpenAI({
      replies: [{ kind: "text", text: `\`\`\`json\n${JSON.stringify(items)}\n\`\`\`` }],
    });
    const env = { DOSSIER_MODEL: "openai-compatible:judge", DOSSIER_BASE_URL: server.url };
    const result = await dossier(
      ["eval", "rubric", "generate", "Compare EV batteries", "--out", "r.json"],
      env,
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^7\s+error\s+-2\s+Stale data$/m);
    expect(result.stdout).toContain('repaired: item 7 ("Stale data"): weight 2 → -2 (error)');
    const saved = JSON.parse(fs.readFileSync(join(cwd, "r.json"), "utf8")) as QueryRubric;
    expect(saved.query).toBe("Compare EV batteries");
    expect(saved.items).toHaveLength(7);
    expect(saved.model).toBe("openai-compatible:judge");
  });
});
