/**
 * smtl (mode answer) resumed after SIGKILLs at three points: its plan starts three searches at once
 * and a step reads a page while it searches again; they register what they find in the
 * evidence registry as it arrives, in another order than they started (and than a resume
 * replays them).
 * No completed model call is paid for again, and the report's every citation resolves.
 */

import { afterEach, describe, it } from "vitest";
import { modelGate } from "../../../test/research/killed-run.ts";
import {
  expectResumedWithoutRepeats,
  killThriceAndResume,
  REORDERING_TOOLS,
} from "../../../test/research/killed-thrice.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const CALLS = { "smtl-plan": 1, "smtl-step": 2, reader: 1 };
const KILLS = [1, 2, 3] as const;

describe("smtl resume", () => {
  it("killed after the 1st, 2nd and 3rd answer: no answered call is asked again, citations resolve", async () => {
    const gate = modelGate(() => 20);
    world = await startResearchWorld({ hold: gate.hold, ...REORDERING_TOOLS, expectCalls: CALLS });
    const run = await killThriceAndResume(world, gate, {
      strategy: "smtl",
      kills: KILLS,
      args: ["--mode", "answer"],
    });
    expectResumedWithoutRepeats(world, run, {
      kills: KILLS,
      uninterrupted: Object.values(CALLS).reduce((a, b) => a + b, 0),
    });
  }, 90_000);
});
