/**
 * The rl export of a forced-expansion warp run, written by hand (test-fixtures.ts): units `call`
 * and `trajectory` end at the relabelled TERMINATE on D2's unforced request — trained (loss mask
 * 1) and marked `relabelled`, no other line marked — with the calls after the cut left out by
 * name; the forced EXPAND kept before the cut stays on the prompt the model really saw; unit
 * `run` is the report already; `warpPruning: false` exports the calls as recorded.
 */

import { describe, expect, it } from "vitest";
import { rlRecords, type ScoredRun } from "./rl.ts";
import { forcedWarpRun, TERMINATE_REPLY } from "./test-fixtures.ts";

const CUT_REASON = "after the cut: WARP pruning ends the trajectory at draft 1 with a relabelled TERMINATE";

/** The forced run (reward 1) and a plain run of its group (reward 0). */
function scored(): ScoredRun[] {
  const plain = { ...forcedWarpRun("run-p"), strategy: "smtl", group: { id: "q1", index: 1 } };
  return [
    { run: forcedWarpRun(), reward: { reward: 1, components: {} } },
    { run: plain, reward: { reward: 0, components: {} } },
  ];
}

describe("rl export of a forced-expansion warp run", () => {
  it("unit call: the calls up to the best draft, then the relabelled TERMINATE; later calls skipped with the reason", () => {
    const { records, skipped } = rlRecords(scored());
    const forced = records.filter((r) => r.run_id === "run-w");
    expect(forced.map((r) => [r.call_id, r.loss_mask, r.relabelled ?? false])).toEqual([
      ["W1", 1, false],
      ["D1", 1, false],
      ["W2", 1, false],
      ["D2:terminate", 1, true],
    ]);
    const terminate = forced.at(-1)!;
    expect(terminate).toMatchObject({
      id: "run-w/D2:terminate",
      role: "planner",
      scope: "deepen",
      step: 2,
      completion: TERMINATE_REPLY,
      messages: [{ role: "user", content: "Draft 1: expand a section or terminate?" }],
      format_errors: [],
    });
    expect(terminate.advantage).toBeGreaterThan(0);
    expect(skipped).toEqual([
      { runId: "run-w", callId: "D2", reason: CUT_REASON },
      { runId: "run-w", callId: "W3", reason: CUT_REASON },
    ]);
    // the forced EXPAND before the cut keeps the prompt the model saw (no re-prompting in rl)
    expect(forced.find((r) => r.call_id === "D1")!.messages).toEqual([
      { role: "user", content: "Draft 0: you must expand a section now." },
    ]);
    // a run of another strategy is exported as recorded, nothing relabelled
    expect(records.filter((r) => r.run_id === "run-p").map((r) => [r.call_id, r.relabelled])).toEqual([
      ["W1", undefined],
      ["D1", undefined],
      ["W2", undefined],
      ["D2", undefined],
      ["W3", undefined],
    ]);
  });

  it("unit trajectory: only the conversation ending at the TERMINATE is marked relabelled", () => {
    const { records, skipped } = rlRecords(scored().slice(0, 1), { unit: "trajectory" });
    expect(records.map((r) => [r.call_ids, r.loss_mask, r.relabelled ?? false])).toEqual([
      [["W1"], 1, false],
      [["D1"], 1, false],
      [["W2"], 1, false],
      [["D2:terminate"], 1, true],
    ]);
    expect(records.at(-1)!.completion).toBe(TERMINATE_REPLY);
    expect(skipped.map((s) => s.callId)).toEqual(["D2", "W3"]);
  });

  it("warpPruning false: every call as recorded, none relabelled, none skipped", () => {
    for (const unit of ["call", "trajectory"] as const) {
      const { records, skipped } = rlRecords(scored().slice(0, 1), { unit, warpPruning: false });
      expect(records.map((r) => r.call_id)).toEqual(["W1", "D1", "W2", "D2", "W3"]);
      expect(records.some((r) => r.relabelled)).toBe(false);
      expect(skipped).toEqual([]);
    }
  });

  it("unit run: one line, the report its reward judged, nothing pruned or skipped", () => {
    const { records, skipped } = rlRecords(scored().slice(0, 1), { unit: "run" });
    expect(records.map((r) => [r.id, r.completion, r.loss_mask, r.relabelled])).toEqual([
      ["run-w", "# Draft 2", 1, undefined],
    ]);
    expect(skipped).toEqual([]);
  });

  it("skips a forced run that cannot be pruned whole, with the reason, and exports the rest", () => {
    const [forced, plain] = scored();
    const old = { ...forced!.run, drafts: forced!.run.drafts.map(({ lastCallId: _, ...d }) => d) };
    const { records, skipped } = rlRecords([{ ...forced!, run: old }, plain!]);
    expect(records.every((r) => r.run_id === "run-p")).toBe(true);
    expect(records).toHaveLength(5);
    expect(skipped).toEqual([
      {
        runId: "run-w",
        reason:
          "run run-w cannot be pruned: its drafts do not name the calls before them (recorded by an earlier version; record it again)",
      },
    ]);
  });
});
