// A test that declares a router call it never makes: the strict check must fail it.
import { afterEach, expect, it } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../world.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
});

it("fixture a leaves a declared call unused", async () => {
  world = await startResearchWorld({ expectCalls: { router: 1 } });
  expect(world.script.counts.router).toBe(0);
});
