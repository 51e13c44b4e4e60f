/**
 * minddr resumed after SIGKILLs at three points: its DeepSearch agents run concurrently and
 * share the XoT memory and the evidence registry, and the first agent answers slowest, so the
 * first attempt fills both in another order than a resume (which replays in code order) would.
 * No completed model call is paid for again, and the report's every citation resolves.
 */

import { afterEach, describe, it } from "vitest";
import { modelGate } from "../../../test/research/killed-run.ts";
import {
  expectResumedWithoutRepeats,
  killThriceAndResume,
  REORDERING_TOOLS,
} from "../../../test/research/killed-thrice.ts";
import { userText } from "../../../test/research/replies.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const CALLS = {
  planner: 1,
  "search-step": 3,
  reader: 3,
  "sub-report": 3,
  outline: 1,
  section: 4,
  coherence: 1,
};
const KILLS = [1, 8, 15] as const;

describe("minddr resume", () => {
  it("killed after the 1st, 8th and 15th answer: no answered call is asked again, citations resolve", async () => {
    // The first agent's model answers come last.
    const gate = modelGate((r) =>
      userText(r.body as Parameters<typeof userText>[0]).includes("Your subtask: Aspect 1") ? 250 : 20,
    );
    world = await startResearchWorld({
      subtasks: 3,
      hold: gate.hold,
      ...REORDERING_TOOLS,
      expectCalls: CALLS,
    });
    const run = await killThriceAndResume(world, gate, { strategy: "minddr", kills: KILLS });
    expectResumedWithoutRepeats(world, run, {
      kills: KILLS,
      uninterrupted: Object.values(CALLS).reduce((a, b) => a + b, 0),
    });
  }, 90_000);
});
