import { describe, expect, it, vi } from "vitest";
import type { RubricItemRater } from "./rubric.ts";
import { ACCEPTED, RATINGS, REJECTED, RUBRIC_ITEMS } from "./rubric-fixtures.ts";
import { parseRubricCandidate, type RubricQualityJudge, rubricGeneratorReward } from "./rubric-generator.ts";

const completion = `<think>weigh the query</think>\n\`\`\`json\n${JSON.stringify(RUBRIC_ITEMS)}\n\`\`\``;
const row = { query: "Who founded the museum?", accepted: ACCEPTED, rejected: REJECTED };
const rate = () =>
  vi.fn<RubricItemRater>(
    async ({ item, report }) => RATINGS[report]![RUBRIC_ITEMS.findIndex((i) => i.title === item.title)]!,
  );
const quality = (score: number) => vi.fn<RubricQualityJudge>(async () => score);

describe("rubric-generator: R_total = λ_pref R_pref + λ_llm R_llm + R_fmt (Eq. 1–3)", () => {
  it("ranks the accepted report above the rejected one: S = 11/12 > 11/36 → R_pref = +1; with R_llm = 3, R = 1 + 3 + 0", async () => {
    const r = await rubricGeneratorReward(completion, row, { rate: rate(), quality: quality(3) });
    expect(r.scores!.accepted).toBeCloseTo(11 / 12, 12);
    expect(r.scores!.rejected).toBeCloseTo(11 / 36, 12);
    expect(r.components).toEqual({ pref: 1, llm: 3, fmt: 0 });
    expect(r.reward).toBe(4);
  });

  it("gives R_pref = −1 when the rubric ranks them the other way or ties; λ weights apply", async () => {
    const swapped = { ...row, accepted: REJECTED, rejected: ACCEPTED };
    const r = await rubricGeneratorReward(
      completion,
      swapped,
      { rate: rate(), quality: quality(2.5) },
      { lambdaPref: 2, lambdaLlm: 0.5 },
    );
    // 2·(−1) + 0.5·2.5 + 0 = −0.75
    expect(r.components.pref).toBe(-1);
    expect(r.reward).toBeCloseTo(-0.75, 12);
    const tie = await rubricGeneratorReward(
      completion,
      { ...row, rejected: ACCEPTED },
      { rate: rate(), quality: quality(0) },
    );
    expect(tie.components.pref).toBe(-1);
  });

  it("enforces the schema as a hard constraint: R_fmt = −1, R_pref = −1, R_llm = 0, no judge call", async () => {
    for (const bad of [
      "not json",
      "[]", // no rubric
      JSON.stringify(RUBRIC_ITEMS.map((i) => ({ ...i, weight: String(i.weight) }))),
      JSON.stringify(RUBRIC_ITEMS.map(({ title, weight }) => ({ title, weight }))),
    ]) {
      const rater = rate();
      const judge = quality(4);
      const r = await rubricGeneratorReward(bad, row, { rate: rater, quality: judge });
      expect([r.components, r.reward], bad).toEqual([{ pref: -1, llm: 0, fmt: -1 }, -2]);
      expect(r.problems.length).toBeGreaterThan(0);
      expect(rater).not.toHaveBeenCalled();
      expect(judge).not.toHaveBeenCalled();
    }
    expect(parseRubricCandidate(completion)).toEqual({ items: RUBRIC_ITEMS });
  });

  it("takes the schema as the whole format check: fewer items than the prompt asks for are well formed", async () => {
    const six = JSON.stringify(RUBRIC_ITEMS.slice(0, 6));
    const r = await rubricGeneratorReward(six, row, { rate: rate(), quality: quality(2) });
    expect(r.components.fmt).toBe(0);
    expect(parseRubricCandidate(six)).toEqual({ items: RUBRIC_ITEMS.slice(0, 6) });
  });
});

describe("rubric-generator: what a trainer sees at the edges", () => {
  it("asks the meta-judge about the query and the parsed items, and reports no problem for a valid rubric", async () => {
    const judge = quality(3);
    const r = await rubricGeneratorReward(completion, row, { rate: rate(), quality: judge });
    expect(judge).toHaveBeenCalledWith({ query: row.query, items: RUBRIC_ITEMS });
    expect(r.problems).toEqual([]);
    expect(r.lambdas).toEqual({ pref: 1, llm: 1 });
  });

  it("says why a rubric is malformed: the item's path, or the whole rubric, or the missing JSON", () => {
    const noJson = parseRubricCandidate("not json");
    expect(noJson).toEqual({ problems: ["no JSON object or array found in the answer"] });
    const stringWeight = parseRubricCandidate(JSON.stringify([{ ...RUBRIC_ITEMS[0], weight: "5" }]));
    expect(stringWeight).toEqual({ problems: [expect.stringMatching(/^0\.weight: /)] });
    const empty = parseRubricCandidate("[]");
    expect(empty).toEqual({ problems: [expect.stringMatching(/^rubric: \S/)] });
  });

  it("refuses a blank title or description: the schema wants text in both", async () => {
    for (const blank of [
      [{ ...RUBRIC_ITEMS[0], title: "   " }],
      [{ ...RUBRIC_ITEMS[0], description: "\n" }],
    ]) {
      const r = await rubricGeneratorReward(JSON.stringify(blank), row, {
        rate: rate(),
        quality: quality(4),
      });
      expect([r.components.fmt, r.reward]).toEqual([-1, -2]);
    }
  });

  it("takes a reward of −λ_pref − 1 for a malformed rubric, whatever λ_llm", async () => {
    const r = await rubricGeneratorReward(
      "[]",
      row,
      { rate: rate(), quality: quality(4) },
      { lambdaPref: 3, lambdaLlm: 5 },
    );
    expect(r.reward).toBe(-4);
    expect(r.scores).toBeNull();
  });

  it("does not count a ranking as correct when either report could not be rated at all", async () => {
    // accepted unrated, rejected rated low: S(r_rej) = −(1 + 2)/12 < 0
    const rejectedLow = vi.fn<RubricItemRater>(async ({ item, report }) =>
      report === ACCEPTED ? null : item.weight < 0 ? 10 : 1,
    );
    const a = await rubricGeneratorReward(completion, row, { rate: rejectedLow, quality: quality(1) });
    expect(a.scores).toEqual({ accepted: null, rejected: -0.25 });
    expect([a.components.pref, a.reward]).toEqual([-1, 0]);
    // rejected unrated, accepted rated well: S(r_acc) = 11/12 > 0
    const acceptedOnly = vi.fn<RubricItemRater>(async ({ item, report }) =>
      report === REJECTED ? null : RATINGS[ACCEPTED]![RUBRIC_ITEMS.findIndex((i) => i.title === item.title)]!,
    );
    const b = await rubricGeneratorReward(completion, row, { rate: acceptedOnly, quality: quality(1) });
    expect(b.scores!.rejected).toBeNull();
    expect([b.components.pref, b.reward]).toEqual([-1, 0]);
  });
});
