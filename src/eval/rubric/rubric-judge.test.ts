import { describe, expect, it } from "vitest";
import { instantClock } from "../../../test/scripted/clocks.ts";
import { scriptedRegistry } from "../../../test/scripted/harness.ts";
import { type ScriptStep, scriptedModel } from "../../../test/scripted/scripted-model.ts";
import type { EventInput } from "../../core/events.ts";
import { LlmClient } from "../../llm/client.ts";
import { generateRubric } from "./rubric-generate.ts";
import { compareScores, scoreReports } from "./rubric-judge.ts";
import type { QueryRubric } from "./rubric-types.ts";

const rubric: QueryRubric = {
  query: "Compare EV battery chemistries",
  items: [
    {
      title: "Chemistries covered",
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
      title: "Tables",
      description: "Optional Criterion: Uses a comparison table.",
      weight: 1,
      category: "optional",
    },
    {
      title: "Outdated data",
      description: "Error Criterion: Uses outdated figures.",
      weight: -2,
      category: "error",
    },
  ],
};

function setup(steps: ScriptStep[]) {
  const model = scriptedModel(steps);
  const events: EventInput[] = [];
  const client = new LlmClient({
    registry: scriptedRegistry({ default: model }),
    clock: instantClock(),
    emit: (e) => events.push(e),
  });
  return { model, client, events };
}

const rate = (rating: number) => ({ json: { reason: "because", rating } });

describe("scoreReports", () => {
  it("rates every item of two reports concurrently, repairs one bad answer and counts one failure", async () => {
    const { client, events } = setup([
      { match: /Covers LFP[\s\S]*REPORT-A/, reply: rate(10) },
      { match: /cost per kWh[\s\S]*REPORT-A/, reply: "rating: 4 out of 10" },
      { match: /could not be used/, reply: rate(4) },
      { match: /comparison table[\s\S]*REPORT-A/, reply: rate(1) },
      { match: /outdated figures[\s\S]*REPORT-A/, reply: rate(7) },
      { match: /Covers LFP[\s\S]*REPORT-B/, reply: rate(7) },
      { match: /cost per kWh[\s\S]*REPORT-B/, reply: { error: { status: 400, message: "bad request" } } },
      { match: /comparison table[\s\S]*REPORT-B/, reply: rate(10) },
      { match: /outdated figures[\s\S]*REPORT-B/, reply: rate(1) },
    ]);
    const [a, b] = await scoreReports(
      client,
      rubric,
      [
        { name: "a.md", text: "REPORT-A text" },
        { name: "b.md", text: "REPORT-B text" },
      ],
      { concurrency: 8 },
    );
    // a: (5·1 + 3·(1/3) + 1·0 − 2·(2/3)) / Σw = (14/3) / 7 = 2/3
    expect(a!.score.score).toBeCloseTo(2 / 3, 12);
    expect(a!.items.map((i) => i.rating)).toEqual([10, 4, 1, 7]);
    expect(a!.judge).toEqual({ total: 4, ok: 4, failed: 0, calls: 5, formatErrors: 1 });
    // b: cost item failed and is left out: (5·(2/3) + 1·1 − 2·0) / (5 + 1 − 2) = (13/3) / 4 = 13/12
    expect(b!.score.score).toBeCloseTo(13 / 12, 12);
    expect(b!.score).toMatchObject({ rated: 3, failed: 1, complete: false });
    expect(b!.items[1]).toMatchObject({ rating: null, value: null, error: { code: "PROVIDER_ERROR" } });
    expect(b!.judge).toMatchObject({ failed: 1, ok: 3 });
    expect(compareScores(a!.score, b!.score)).toBe("b");
    expect(events.filter((e) => e.type === "format-error")).toHaveLength(1);
  });
});

describe("generateRubric", () => {
  const items = (n: number, weight = 5) =>
    Array.from({ length: n }, (_, i) => ({
      title: `Item ${i + 1}`,
      description: `Key Criterion: Covers aspect ${i + 1}.`,
      weight,
    }));

  it("re-asks when the list is too short, then repairs and stores the model", async () => {
    const { client, model } = setup([
      { json: items(3) },
      {
        json: { items: [...items(6), { title: "Wrong", description: "Error Criterion: Errs.", weight: 3 }] },
      },
    ]);
    const generated = await generateRubric(client, "Compare EV batteries", {
      now: () => "2026-01-01T00:00:00Z",
    });
    expect(generated.calls).toBe(2);
    expect(generated.formatErrors).toBe(1);
    expect(generated.rubric.items).toHaveLength(7);
    expect(generated.rubric.items[6]).toEqual({
      title: "Wrong",
      description: "Error Criterion: Errs.",
      weight: -2,
      category: "error",
    });
    expect(generated.repairs).toEqual(['item 7 ("Wrong"): weight 3 → -2 (error)']);
    expect(generated.rubric).toMatchObject({
      query: "Compare EV batteries",
      model: "openai-compatible:scripted-default",
      generatedAt: "2026-01-01T00:00:00Z",
    });
    expect(model.calls[1]!.lastUser).toContain("could not be used");
  });

  it("re-asks with the problems repair cannot fix, and fails when they persist", async () => {
    const duplicates = [...items(6), { title: "item 1", description: "Key Criterion: again.", weight: 5 }];
    const { client, model } = setup([{ json: duplicates }, { json: duplicates }]);
    await expect(generateRubric(client, "q", { maxRounds: 1 })).rejects.toMatchObject({
      code: "STRUCTURED_OUTPUT_FAILED",
    });
    expect(model.calls[1]!.lastUser).toContain("7-20 items, this one has 6");
  });
});
