/**
 * graph resumed after SIGKILLs at three points: its inner agents run concurrently and
 * register what their searches find in the shared evidence registry, and their searches finish
 * in another order than they started (and than a resume replays them).
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

const CALLS = {
  router: 1,
  "init-plan": 1,
  "graph-planner": 2,
  critic: 2,
  "ephemeral-rubric": 2,
  "inner-step": 4,
  consolidate: 1,
  "sub-report": 2,
  reader: 4,
  outline: 1,
  section: 4,
  coherence: 1,
};
/**
 * Killed after the router's answer; among the first cycle's concurrent search agents (their page
 * readers answering); and after the last planner turn, before the sections are written.
 */
const KILLS = [1, 11, 20] as const;

describe("graph resume", () => {
  it("killed after the 1st, 11th and 20th answer: no answered call is asked again, citations resolve", async () => {
    const gate = modelGate(() => 20);
    world = await startResearchWorld({ hold: gate.hold, ...REORDERING_TOOLS, expectCalls: CALLS });
    const run = await killThriceAndResume(world, gate, { strategy: "graph", kills: KILLS });
    expectResumedWithoutRepeats(world, run, {
      kills: KILLS,
      uninterrupted: Object.values(CALLS).reduce((a, b) => a + b, 0),
    });
  }, 90_000);
});
