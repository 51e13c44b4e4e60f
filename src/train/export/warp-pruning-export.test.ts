/**
 * WARP pruning in the exports, on a real forced-expansion run of the scripted world: two forced
 * expansions, a judge that scores the middle draft best, so the decision that saw it is the
 * second forced EXPAND. The sft and rl exports must end the run's trajectory there with TERMINATE
 * on the unforced decision request, and hold no call made after it.
 */

import { afterEach, describe, expect, it } from "vitest";
import { forcedExpansionRun } from "../../../test/warp/forced-run.ts";
import { cleanup } from "../../../test/warp/kit.ts";
import { prunedRun } from "../curation/warp-pruned-run.ts";
import type { RecordedRun } from "../recorded-run.ts";
import { dpoRecords } from "./dpo.ts";
import { rlRecords } from "./rl.ts";
import { sftRecords } from "./sft.ts";

afterEach(cleanup);

/** The forced run (2 expansions; the first decision tries TERMINATE, is refused and re-asked), recorded. */
async function forcedRun(): Promise<RecordedRun> {
  const { run, status } = await forcedExpansionRun();
  expect(status).toBe("completed");
  return run;
}

const TERMINATE = '{"name":"terminate"}';
const systemOf = (messages: readonly { role: string; content: string }[]) =>
  messages.find((m) => m.role === "system")?.content ?? "";

describe("WARP pruning in the training exports", () => {
  it("sft and rl end a forced-expansion run at the relabelled TERMINATE and hold no later call", async () => {
    const run = await forcedRun();
    const { pruned, terminate: relabelled, dropped } = prunedRun(run);
    expect(pruned.cut).toBe(1);
    expect(pruned.relabelledFrom).toBe("expand");
    // The calls after the cut: the second forced EXPAND, the drafting of its sections, the scoring.
    const after = run.calls.filter((c) => dropped.includes(c.callId));
    const completions = after.map((c) => c.completion).join("\n");
    expect(completions).toContain("section-2");
    expect(completions).toContain("S2.1:");
    expect(after.some((c) => c.role === "judge")).toBe(true);
    const decision = run.trajectory.find((a) => a.step === pruned.draft.step + 1)!;
    const forcedCall = run.calls.find((c) => c.callId === decision.callIds!.at(-1))!;
    expect(systemOf(forcedCall.messages)).toContain("You must expand one section now.");

    // sft: one conversation per call; the decision that saw the best draft is TERMINATE.
    const sft = sftRecords([run]);
    const taught = sft.records.map((r) => r.messages.at(-1)!.content);
    expect(taught.filter((c) => c === TERMINATE)).toHaveLength(1);
    expect(taught.at(-1)).toBe(TERMINATE);
    const last = sft.records.at(-1)!.messages;
    // on the request the policy would have had unforced: TERMINATE offered, the ordinary cap
    expect(systemOf(last)).not.toContain("You must expand");
    expect(systemOf(last)).toContain("terminate instead");
    expect(systemOf(last)).toContain('"terminate"');
    expect(last.at(-2)!.content).toContain("Expansions left: 11.");
    expect(last.at(-2)!.content).toContain("S1.1:");
    expect(last.at(-2)!.content).not.toContain("S2.1:");
    // no later call is taught, and each is named as skipped
    const before = new Set(run.calls.filter((c) => !dropped.includes(c.callId)).map((c) => c.completion));
    for (const c of after.filter((a) => !before.has(a.completion)))
      expect(taught).not.toContain(c.completion);
    expect(taught.join("\n")).not.toContain("S2.1:");
    expect(sft.skipped.filter((s) => /after the cut/.test(s.reason)).map((s) => s.callId)).toEqual(dropped);
    // the EXPAND before the cut is taught on its unforced request too; no prompt says "must expand"
    for (const r of sft.records) expect(systemOf(r.messages)).not.toContain("You must expand");
    expect(taught.some((c) => c.includes('"section-1"'))).toBe(true);
    // every kept accepted call is one conversation, plus the TERMINATE
    const kept = run.calls.filter((c) => !dropped.includes(c.callId) && c.formatErrors.length === 0);
    expect(sft.records).toHaveLength(kept.length + 1);
    // per trajectory: the same, warp's agents rebuild their prompt at every call
    const lines = sftRecords([run], { unit: "trajectory" }).records;
    expect(lines.map((r) => r.messages.at(-1)!.content).filter((c) => c === TERMINATE)).toHaveLength(1);
    expect(lines.map((r) => r.messages.at(-1)!.content).join("\n")).not.toContain("S2.1:");

    // rl: the calls as the model saw them up to the cut, then the relabelled TERMINATE
    const reward = { reward: 0.6, components: {} };
    const other = { ...run, runId: "other", calls: [], group: { id: "g", index: 1 } };
    const group = { ...run, group: { id: "g", index: 0 } };
    const rl = rlRecords([
      { run: group, reward },
      { run: other, reward: { reward: 0.2, components: {} } },
    ]).records.filter((r) => r.run_id === run.runId);
    expect(rl.map((r) => r.call_id)).toEqual([
      ...run.calls.filter((c) => !dropped.includes(c.callId)).map((c) => c.callId),
      relabelled.callId,
    ]);
    const end = rl.at(-1)!;
    expect(end).toMatchObject({ relabelled: true, completion: TERMINATE, loss_mask: 1, role: "planner" });
    expect(systemOf(end.messages)).not.toContain("You must expand");
    expect(rl.filter((r) => r.relabelled)).toHaveLength(1);
    // the forced EXPAND before the cut stays as the model saw it; the refused forced TERMINATE is masked
    const forcedLines = rl.filter((r) => systemOf(r.messages).includes("You must expand"));
    expect(forcedLines.map((r) => r.loss_mask)).toEqual([0, 1]);
    const trajectory = rlRecords(
      [
        { run: group, reward },
        { run: other, reward: { reward: 0.2, components: {} } },
      ],
      { unit: "trajectory" },
    ).records.filter((r) => r.run_id === run.runId);
    expect(trajectory.filter((r) => r.relabelled).map((r) => r.completion)).toEqual([TERMINATE]);
    expect(trajectory.map((r) => r.completion).join("\n")).not.toContain("S2.1:");

    // dpo pairs runs' outputs: a forced run's is its report, the best draft — nothing after the cut.
    const [pair] = dpoRecords([
      { input: "q1", chosen: run, rejected: { ...run, runId: "r2" }, chosenReward: 1, rejectedReward: 0 },
    ]).records;
    const chosen = (pair!.chosen as { content: string }[])[0]!.content;
    expect(chosen).toContain("S1.1:");
    expect(chosen).not.toContain("S2.1:");

    // Without pruning the forced trajectory is exported as recorded: later calls, no TERMINATE.
    const raw = sftRecords([run], { warpPruning: false }).records.map((r) => r.messages.at(-1)!.content);
    expect(raw.join("\n")).toContain("S2.1:");
    expect(raw).not.toContain(TERMINATE);
  }, 60_000);

  it("a forced run recorded without its unforced requests is skipped whole, with the reason", async () => {
    const run = await forcedRun();
    const bare: RecordedRun = {
      ...run,
      trajectory: run.trajectory.map((a) => {
        const { unforced: _, ...state } = (a.state ?? {}) as Record<string, unknown>;
        return { ...a, state };
      }),
    };
    const sft = sftRecords([bare]);
    expect(sft.records).toEqual([]);
    expect(sft.skipped).toEqual([
      { runId: run.runId, reason: expect.stringMatching(/cannot be pruned: .*no unforced request/) },
    ]);
  }, 60_000);
});
