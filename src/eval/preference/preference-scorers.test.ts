import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { instantClock } from "../../../test/scripted/clocks.ts";
import { scriptedRegistry } from "../../../test/scripted/harness.ts";
import { type ScriptStep, scriptedModel } from "../../../test/scripted/scripted-model.ts";
import { LlmClient } from "../../llm/client.ts";
import { joinScores, loadScores, loadTriples, type PreferenceTriple } from "./preference-files.ts";
import { preferenceMetrics } from "./preference-metrics.ts";
import { scoreTriples } from "./preference-scorers.ts";

function client(steps: ScriptStep[]) {
  const model = scriptedModel(steps);
  return new LlmClient({ registry: scriptedRegistry({ default: model }), clock: instantClock() });
}

const triples: PreferenceTriple[] = [
  { id: "q1", query: "Q1", preferred: "GOOD-1", rejected: "BAD-1" },
  { id: "q2", query: "Q2", preferred: "GOOD-2", rejected: "BAD-2" },
];

describe("scoreTriples", () => {
  it("pointwise: rates each report; a failed rating leaves the pair unscored", async () => {
    const c = client([
      { match: "GOOD-1", reply: { json: { reason: "r", rating: 8 } } },
      { match: "BAD-1", reply: { json: { reason: "r", rating: 5 } } },
      { match: "GOOD-2", reply: { json: { reason: "r", rating: 6 } } },
      { match: "BAD-2", reply: "no" },
      { match: "BAD-2", reply: "no" },
      { match: "BAD-2", reply: "no" },
    ]);
    const scoring = await scoreTriples(c, triples, "pointwise", { concurrency: 4 });
    expect(scoring.pairs.map((p) => [p.id, p.preferred, p.rejected])).toEqual([
      ["q1", 8, 5],
      ["q2", 6, null],
    ]);
    expect(scoring.pairs[1]!.errors).toHaveLength(1);
    expect(scoring.judge).toEqual({ total: 4, ok: 3, failed: 1, calls: 6, formatErrors: 3 });
    expect(preferenceMetrics(scoring.pairs)).toMatchObject({ n: 1, skipped: 1, accuracy: 1 });
  });

  it("pairwise: asks in both orders and averages the verdicts", async () => {
    const c = client([
      { match: /report_A>\nGOOD-1/, reply: { json: { reason: "r", winner: "A" } } },
      { match: /report_A>\nBAD-1/, reply: { json: { reason: "r", winner: "B" } } },
      { match: /report_A>\nGOOD-2/, reply: { json: { reason: "r", winner: "tie" } } },
      { match: /report_A>\nBAD-2/, reply: { json: { reason: "r", winner: "A" } } },
    ]);
    const scoring = await scoreTriples(c, triples, "pairwise");
    // q1: preferred wins both orders → 1; q2: tie (½) and a loss (0) → ¼.
    expect(scoring.pairs).toEqual([
      { id: "q1", preferred: 1, rejected: 0 },
      { id: "q2", preferred: 0.25, rejected: 0.75 },
    ]);
  });

  it("rubric: scores both reports with the triple's rubric", async () => {
    const rubric = {
      query: "Q1",
      items: [
        { title: "Facts", description: "Key Criterion: Facts.", weight: 5, category: "key" as const },
        { title: "Errors", description: "Error Criterion: Errors.", weight: -1, category: "error" as const },
      ],
    };
    const c = client([
      { match: /Key Criterion[\s\S]*GOOD-1/, reply: { json: { reason: "r", rating: 10 } } },
      { match: /Error Criterion[\s\S]*GOOD-1/, reply: { json: { reason: "r", rating: 1 } } },
      { match: /Key Criterion[\s\S]*BAD-1/, reply: { json: { reason: "r", rating: 4 } } },
      { match: /Error Criterion[\s\S]*BAD-1/, reply: { json: { reason: "r", rating: 10 } } },
    ]);
    const scoring = await scoreTriples(c, [{ ...triples[0]!, rubric }], "rubric");
    // Σw = 5 − 1 = 4 (the paper's Eq. 2). preferred: (5·1 − 1·0) / 4 = 5/4;
    // rejected: (5·(1/3) − 1·1) / 4 = (2/3) / 4 = 1/6.
    expect(scoring.pairs[0]!.preferred).toBeCloseTo(5 / 4, 12);
    expect(scoring.pairs[0]!.rejected).toBeCloseTo(1 / 6, 12);
    expect(scoring.judge).toMatchObject({ total: 4, ok: 4, failed: 0 });
  });
});

describe("preference files", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(join(os.tmpdir(), "dossier-pref-"));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("loads triples with inline and file reports, and joins scores by id", () => {
    fs.writeFileSync(join(dir, "a.md"), "# A report");
    fs.writeFileSync(
      join(dir, "r.json"),
      JSON.stringify({
        query: "q",
        items: [{ title: "t", description: "Key Criterion: t.", weight: 5, category: "key" }],
      }),
    );
    fs.writeFileSync(
      join(dir, "t.jsonl"),
      [
        JSON.stringify({
          id: 1,
          query: "q",
          preferred: { path: "a.md" },
          rejected: "inline",
          rubric: { path: "r.json" },
        }),
        "",
        JSON.stringify({ id: "two", query: "q2", preferred: "p", rejected: "r" }),
      ].join("\n"),
    );
    const loaded = loadTriples(join(dir, "t.jsonl"));
    expect(loaded.map((t) => [t.id, t.preferred, t.rejected, t.rubric?.items.length ?? null])).toEqual([
      ["1", "# A report", "inline", 1],
      ["two", "p", "r", null],
    ]);
    fs.writeFileSync(
      join(dir, "s.jsonl"),
      '{"id":"1","preferred":0.5,"rejected":0.2}\n{"id":"x","preferred":1,"rejected":0}\n',
    );
    expect(joinScores(["1", "two"], loadScores(join(dir, "s.jsonl")))).toEqual({
      pairs: [
        { id: "1", preferred: 0.5, rejected: 0.2 },
        { id: "two", preferred: null, rejected: null },
      ],
      extra: ["x"],
    });
  });

  it("names the file and line of a bad line", () => {
    fs.writeFileSync(join(dir, "t.jsonl"), '{"id":"1","query":"q","preferred":"p"}\n');
    expect(() => loadTriples(join(dir, "t.jsonl"))).toThrow(/t\.jsonl:1: /);
  });
});
