/**
 * minddr always seeds its search agents with the planner's queries, so no agent can finish
 * before its first tool call; a run that still gathers nothing because no call could be made
 * (a tool-call budget of 0) fails with the budget's stop reason instead of ending `completed`.
 */

import { afterEach, describe, expect, it } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("minddr: no research, no completed run", () => {
  it("no tool call allowed: the run fails with BUDGET_EXCEEDED and budget:toolCalls, no report", async () => {
    world = await startResearchWorld({ subtasks: 3, expectCalls: { planner: 1 } });
    const result = await world.research({
      query: "What drives topic growth?",
      strategy: "minddr",
      budget: { maxToolCalls: 0 },
    });
    expect(result.record.status).toBe("failed");
    expect(result.record.stopReason).toBe("budget:toolCalls");
    expect(result.error?.code).toBe("BUDGET_EXCEEDED");
    expect(result.error?.message).toMatch(/no tool call was made and no evidence gathered/);
    expect(result.outcome).toBeNull();
    expect(world.search.requests).toEqual([]);
    expect(world.script.counts.outline + world.script.counts.section).toBe(0);
  });
});
