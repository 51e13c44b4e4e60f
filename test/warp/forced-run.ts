/**
 * A recorded forced-expansion warp run of the scripted world, for the training exports' tests:
 * two forced expansions (the first decision tries TERMINATE, is refused and re-asked), a judge
 * that scores the middle draft best — so WARP pruning cuts at draft 1 and relabels the second
 * forced EXPAND as TERMINATE.
 */

import type { RecordedRun } from "../../src/train/recorded-run.ts";
import { recordedRunFromEvents } from "../../src/train/run-from-events.ts";
import type { ScriptedCall } from "../scripted/scripted-model.ts";
import {
  drafts,
  expand,
  keywords,
  outline,
  researchWarp,
  step,
  terminate,
  WARP_QUESTION,
  warpDossier,
} from "./kit.ts";

/** The rubric the judge scores the drafts against. */
export const FORCED_RUN_RUBRIC = [
  ...[1, 2, 3].map((i) => ({
    title: `Key ${i}`,
    description: `Key Criterion: covers aspect ${i}.`,
    weight: 5,
  })),
  ...[1, 2].map((i) => ({
    title: `Imp ${i}`,
    description: `Important Criterion: explains ${i}.`,
    weight: 3,
  })),
  { title: "Opt", description: "Optional Criterion: gives an example.", weight: 1 },
  { title: "Err", description: "Error Criterion: states a wrong figure.", weight: -1 },
];

// The draft after the first expansion (S1.1 written, S2.1 not yet) is the best.
const judge = (call: ScriptedCall) => ({
  reason: "scripted",
  rating: call.lastUser.includes("S1.1:") && !call.lastUser.includes("S2.1:") ? 9 : 4,
});

/** The forced run, recorded (its status checked by the caller's `completed`). */
export async function forcedExpansionRun(): Promise<{ run: RecordedRun; status: string }> {
  const { dossier, docs } = warpDossier([
    step("search", keywords("heat pump")),
    step("initialize", outline("Efficiency", "Costs", "Grid")),
    ...drafts(["S1", "S2", "S3"]),
    step("deepen", terminate),
    step("deepen", expand("section-1", "Field trials", "Lab tests")),
    ...drafts(["S1.1", "S1.2"]),
    step("deepen", expand("section-2", "Installation", "Running")),
    ...drafts(["S2.1", "S2.2"]),
    step("rubric", FORCED_RUN_RUBRIC),
    ...Array.from({ length: 3 * FORCED_RUN_RUBRIC.length }, () => step("judge", judge)),
  ]);
  const { result, events } = await researchWarp(dossier, docs, { forceExpand: 2 }, { recordCalls: true });
  const run = recordedRunFromEvents({
    row: { id: "q1", prompt: WARP_QUESTION },
    events,
    report: result.markdown,
  });
  return { run, status: result.status };
}
