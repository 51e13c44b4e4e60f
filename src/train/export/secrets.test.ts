import { describe, expect, it } from "vitest";
import { dpoPairs } from "../curation/dpo-pairs.ts";
import { recordedRunSchema } from "../recorded-run.ts";
import { dpoRecords } from "./dpo.ts";
import { rlRecords } from "./rl.ts";
import { sftRecords } from "./sft.ts";
import { scoredGroup, secretLike } from "./test-fixtures.ts";
import { questionRowsOfRuns, verlParquet, verlRecords } from "./verl.ts";
import { jsonlText } from "./write.ts";

/** Every export of the scored runs, as the text that would be written. */
function allExports(scored: ReturnType<typeof scoredGroup>): string[] {
  const runs = scored.map((s) => s.run);
  const pairs = dpoPairs(
    scored.map((s) => ({ input: s.run.row.id, output: s.run, reward: s.reward.reward })),
  );
  const verl = verlRecords(questionRowsOfRuns(runs));
  return [
    jsonlText(sftRecords(runs).records),
    jsonlText(sftRecords(runs, { unit: "trajectory", keepFormatErrors: true }).records),
    jsonlText(dpoRecords(pairs, { metadata: true }).records),
    jsonlText(rlRecords(scored).records),
    jsonlText(rlRecords(scored, { unit: "run" }).records),
    jsonlText(verl),
    Buffer.from(verlParquet(verl)).toString("latin1"),
  ];
}

const KEY = "sk-proj-Abcdefghijklmnopqrstuvwx0123";

/** The runs with credentials planted where a careless recorder could have left them. */
function planted() {
  return scoredGroup().map(({ run, reward }) => ({
    run: {
      ...run,
      apiKey: KEY,
      row: { ...run.row, api_key: KEY, headers: { Authorization: `Bearer ${KEY}` } },
      calls: run.calls.map((c) => ({
        ...c,
        headers: { Authorization: `Bearer ${KEY}` },
        baseUrl: "http://x",
      })),
    },
    reward,
  }));
}

describe("exports hold no secret-looking string", () => {
  it("recorded runs carry none, and neither does any export of them", () => {
    const scored = scoredGroup();
    for (const { run } of scored)
      expect(secretLike(JSON.stringify(recordedRunSchema.parse(run)))).toEqual([]);
    for (const text of allExports(scored)) expect(secretLike(text)).toEqual([]);
  });

  it("fields outside the documented shapes never reach a file, even when an input carries them", () => {
    const scored = planted();
    expect(secretLike(JSON.stringify(scored)).length).toBeGreaterThan(0); // the scanner sees them
    for (const text of allExports(scored as never)) {
      expect(secretLike(text)).toEqual([]);
      expect(text).not.toContain(KEY);
    }
  });
});
