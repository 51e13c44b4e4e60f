/**
 * warp resumed after SIGKILLs at three points: its SEARCH action runs its keywords
 * concurrently and registers the passages in the evidence registry as they arrive, and the
 * searches finish in another order than they started (and than a resume replays them).
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

// Each of the five drafted sections reads one page by default (a reader call each).
const CALLS = { "warp-search": 6, "warp-init": 1, "warp-write": 5, "warp-deepen": 2, reader: 5 };
const KILLS = [1, 7, 12] as const;

describe("warp resume", () => {
  it("killed after the 1st, 7th and 12th answer: no answered call is asked again, citations resolve", async () => {
    const gate = modelGate(() => 20);
    world = await startResearchWorld({ hold: gate.hold, ...REORDERING_TOOLS, expectCalls: CALLS });
    const run = await killThriceAndResume(world, gate, { strategy: "warp", kills: KILLS });
    expectResumedWithoutRepeats(world, run, {
      kills: KILLS,
      uninterrupted: Object.values(CALLS).reduce((a, b) => a + b, 0),
    });
  }, 90_000);
});
