import { describe, expect, it } from "vitest";
import type { RecordedDraft, TrajectoryAction } from "../recorded-run.ts";
import { bestDraft, decisionLabels, pruneTrajectory, scoreDrafts } from "./warp-pruning.ts";

const act = (
  step: number,
  action: string,
  scope = "planner",
  state: unknown = { seen: step },
): TrajectoryAction => ({
  step,
  action,
  state,
  answer: { name: action },
  scope,
  toolCallIds: [],
});
/*
 * A forced-expansion run (3 drafts):
 *   1 search, 2 initialize, 3–6 search/write two sections  → draft 0 after step 6
 *   7 expand, 8–11 search/write its two subsections         → draft 1 after step 11
 *   12 expand, 13–14 search/write one subsection            → draft 2 after step 14
 * and the engine's own relabel marker (step 12, state.relabelled).
 */
const trajectory: TrajectoryAction[] = [
  act(1, "search"),
  act(2, "initialize"),
  act(3, "search", "section:1"),
  act(4, "write", "section:1"),
  act(5, "search", "section:2"),
  act(6, "write", "section:2"),
  act(7, "expand"),
  act(8, "search", "section:2.1"),
  act(9, "write", "section:2.1"),
  act(10, "search", "section:2.2"),
  act(11, "write", "section:2.2"),
  act(12, "expand"),
  act(13, "search", "section:1.1"),
  act(14, "write", "section:1.1"),
  act(12, "terminate", "scorer", { cut: 1, relabelled: true }),
];
const draft = (index: number, step: number, score: number | null): RecordedDraft => ({
  index,
  step,
  expansions: index,
  markdown: `# Draft ${index}`,
  score,
});
const drafts = [draft(0, 6, 0.4), draft(1, 11, 0.7), draft(2, 14, 0.6)];

describe("WARP trajectory pruning", () => {
  it("drafts scored 0.4, 0.7, 0.6: ends at the second draft, the next decision relabelled TERMINATE with its own number", () => {
    const pruned = pruneTrajectory({ trajectory, drafts });
    expect(pruned.cut).toBe(1);
    expect(pruned.draft.markdown).toBe("# Draft 1");
    expect(pruned.actions.map((a) => a.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(pruned.actions.map((a) => a.action).slice(-3)).toEqual(["search", "write", "terminate"]);
    const last = pruned.actions.at(-1)!;
    expect(last).toEqual({
      step: 12,
      action: "terminate",
      state: { seen: 12 }, // the state the EXPAND at step 12 saw: draft 1
      answer: { name: "terminate" },
      scope: "planner",
      toolCallIds: [],
    });
    expect(pruned.relabelledFrom).toBe("expand");
    expect(pruned.dropped).toBe(3); // steps 13, 14 and the engine's marker
    expect(new Set(pruned.actions.map((a) => a.step)).size).toBe(pruned.actions.length);
    expect([...decisionLabels(pruned)]).toEqual([
      [7, "expand"],
      [12, "terminate"],
    ]);
  });

  it("takes recorded scores by default and explicit ones when given; at the last draft it appends TERMINATE", () => {
    const pruned = pruneTrajectory({ trajectory, drafts }, [0.1, 0.2, 0.9]);
    expect(pruned.cut).toBe(2);
    expect(pruned.actions.map((a) => a.step)).toEqual([...Array.from({ length: 14 }, (_, i) => i + 1), 15]);
    expect(pruned.actions.at(-1)).toMatchObject({ step: 15, action: "terminate", state: null });
    expect(pruned.relabelledFrom).toBeNull();
  });

  it("picks the earliest of equal best scores, never an unscored draft, the last when none is scored", () => {
    expect(bestDraft([0.5, 0.7, 0.7])).toBe(1);
    expect(bestDraft([null, 0.1, null])).toBe(1);
    expect(bestDraft([null, null])).toBe(1);
    expect(() => pruneTrajectory({ trajectory, drafts }, [0.1])).toThrow(/3 drafts but 1 scores/);
  });

  it("scores every draft in order", async () => {
    const seen: number[] = [];
    const scores = await scoreDrafts(drafts, async (d) => {
      seen.push(d.index);
      return d.index === 1 ? null : d.index / 10;
    });
    expect([seen, scores]).toEqual([
      [0, 1, 2],
      [0, null, 0.2],
    ]);
  });
});
