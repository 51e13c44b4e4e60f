/**
 * A research world for resuming follow-ups: the follow-up's first model call is cancelled in flight.
 */

import { FOLLOW_UP_MARKER } from "../../src/runtime/ask-about-strategy.ts";
import { type ResearchWorld, startResearchWorld, type WorldOptions } from "./world.ts";

/**
 * A research world whose first follow-up model call is cancelled in flight: `controller` is
 * aborted as that call arrives, and the call is held (answered to nobody) until `release()`.
 */
export async function worldCancellingFollowUp(expectCalls: WorldOptions["expectCalls"]): Promise<{
  world: ResearchWorld;
  controller: AbortController;
  release: () => void;
}> {
  const controller = new AbortController();
  let held = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const world = await startResearchWorld({
    ...(expectCalls === undefined ? {} : { expectCalls }),
    hold: async (request) => {
      if (!JSON.stringify(request.body).includes(FOLLOW_UP_MARKER) || held++ > 0) return;
      controller.abort("test");
      await released;
    },
  });
  return { world, controller, release };
}
