import { describe, expect, it } from "vitest";
import { instantClock } from "../../../test/scripted/clocks.ts";
import { scriptedRegistry } from "../../../test/scripted/harness.ts";
import { type ScriptStep, scriptedModel } from "../../../test/scripted/scripted-model.ts";
import { LlmClient } from "../../llm/client.ts";
import { recomputeFromJudgments } from "./recompute.ts";
import type { RaceArticle } from "./records.ts";
import { runRace } from "./runner.ts";
import { raceCriteria as criteria, raceJudgment } from "./test-fixtures.ts";

const judgment = (c: [number, number], i: [number, number], f: [number, number], r: [number, number]) =>
  JSON.stringify(raceJudgment(c, i, f, r));

const body = (name: string) =>
  `# Report ${name}\n\nRice prices rose sharply in the second half of the year after the drought [1]. Stocks fell to a decade low [2].\n\n## References\n\n1. Ministry data. <https://example.org/${name}/1>\n2. Market note. <https://example.org/${name}/2>`;
const cleaned = (name: string) =>
  `# Report ${name}\n\nRice prices rose sharply in the second half of the year after the drought. Stocks fell to a decade low.`;

const judgeStep = (task: string, reply: string): ScriptStep => ({
  match: (p: string) => p.includes(`<task>\n${task}\n</task>`),
  reply: { text: reply },
});
const cleanStep = (name: string): ScriptStep => ({
  match: (p: string) => p.includes(`<article>\n# Report ${name}`),
  reply: { text: cleaned(name) },
});

describe("runRace", () => {
  it("cleans, judges (re-asking an unparsable answer), scores, and counts failed tasks", async () => {
    const model = scriptedModel([
      cleanStep("A"),
      cleanStep("B"),
      cleanStep("D"),
      judgeStep("Task A", judgment([6, 4], [5, 5], [8, 2], [3, 7])),
      judgeStep("Task B", "Article 1 is clearly the stronger of the two."),
      judgeStep("Task B", judgment([9, 1], [2, 8], [5, 5], [7, 3])),
      judgeStep("Task D", "no json"),
      judgeStep("Task D", "still no json"),
      judgeStep("Task D", '{"comprehensiveness": []}'),
    ]);
    const llm = new LlmClient({ registry: scriptedRegistry({ default: model }), clock: instantClock() });
    const prompts = ["Task A", "Task B", "Task C", "Task D"];
    const targets: RaceArticle[] = ["A", "B", "C", "D"].map((n, i) => ({
      id: i + 1,
      prompt: prompts[i]!,
      article: body(n),
    }));
    const references: RaceArticle[] = ["Task A", "Task B", "Task D"].map((prompt) => ({
      prompt,
      article: `Reference for ${prompt}`,
    }));
    const seen: number[] = [];
    const result = await runRace({
      llm,
      criteria: prompts.map((p, i) => criteria(i + 1, p)),
      targets,
      references,
      queries: prompts.map((prompt, i) => ({ id: 101 + i, prompt, language: "en" })),
      concurrency: 3,
      onTask: (_t, done) => seen.push(done),
    });

    expect(seen.sort()).toEqual([1, 2, 3, 4]);
    expect(result.tasks.map((t) => [t.id, t.stage ?? "ok", t.judgeCalls, t.formatErrors])).toEqual([
      [101, "ok", 1, 0],
      [102, "ok", 2, 1],
      [103, "join", 0, 0],
      [104, "judge", 3, 3],
    ]);
    expect(result.tasks[2]!.row.error).toBe("reference article not found for this prompt");
    expect(result.tasks[3]!.row.error).toMatch(/^judge failed: role judge: no valid answer after 3 calls/);
    expect(result.formatErrors).toBe(4);
    expect(result.tasks[0]!.row).toEqual({
      id: 101,
      prompt: "Task A",
      comprehensiveness: 0.6,
      insight: 0.5,
      instruction_following: 0.8,
      readability: 0.3,
      overall_score: 0.55,
    });
    expect(result.summary.tasks).toBe(2);
    expect(result.summary.failed).toBe(2);
    expect(result.summary.overall).toBeCloseTo(0.5625, 12);

    // The judge saw the cleaned target as article_1 and the reference as article_2, and no weights.
    const judgeA = model.calls.find((c) => c.prompt.includes("<task>\nTask A\n</task>"))!;
    expect(judgeA.prompt).toContain(`<article_1>\n${cleaned("A")}\n</article_1>`);
    expect(judgeA.prompt).toContain("<article_2>\nReference for Task A\n</article_2>");
    expect(judgeA.prompt).not.toContain('"weight"');
    expect(result.tasks[0]!.judgedArticle).toBe(cleaned("A"));

    // The stored judgments recompute to the same figures.
    const again = recomputeFromJudgments(
      prompts.map((p, i) => criteria(i + 1, p)),
      result.tasks.map((t) => t.judgmentLine),
    );
    expect(again.rows).toEqual(result.tasks.map((t) => t.row));
    expect(again.summary).toEqual(result.summary);
  });

  it("judges the target as given with skipCleaning", async () => {
    const model = scriptedModel([judgeStep("Task A", judgment([5, 5], [5, 5], [5, 5], [5, 5]))]);
    const llm = new LlmClient({ registry: scriptedRegistry({ default: model }) });
    const result = await runRace({
      llm,
      criteria: [criteria(1, "Task A")],
      targets: [{ id: 1, prompt: "Task A", article: body("A") }],
      references: [{ prompt: "Task A", article: "ref" }],
      skipCleaning: true,
    });
    expect(result.summary.overall).toBe(0.5);
    expect(model.calls[0]!.prompt).toContain("[1]");
  });
});
