import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../fake-openai/types.ts";
import { bounds, isBeyond, unusedRoles } from "./call-expectations.ts";
import { createModelScript } from "./model-script.ts";
import { startResearchWorld, takeScriptViolations } from "./world.ts";

const request = (
  system: string,
  user = "Research question:\n<question>\nq?\n</question>",
): RecordedRequest => ({
  method: "POST",
  path: "/v1/chat/completions",
  headers: {},
  body: {
    messages: [
      { role: "system", content: system },
      { role: "user", content: user },
    ],
  },
  receivedAt: 0,
});
const ROUTER = "You are the router of a research system.";
const CRITIC = "You are the critic of a research team.";

describe("call expectations", () => {
  it("reads exact counts and budgets; an undeclared role allows no call", () => {
    expect(bounds(2)).toEqual([2, 2]);
    expect(bounds([1, 3])).toEqual([1, 3]);
    expect(bounds(undefined)).toEqual([0, 0]);
    expect(isBeyond({ router: 1 }, "router", 2)).toBe(true);
    expect(isBeyond<string>({ router: 1 }, "critic", 1)).toBe(true);
    expect(isBeyond(null, "critic", 99)).toBe(false);
    expect(unusedRoles({ router: [2, 3] }, { router: 1 })).toEqual([
      "role router: expected [2, 3] call(s), got 1",
    ]);
  });
});

describe("the strict model script", () => {
  it("records surplus, undeclared and unrecognised calls as they happen, and unused roles", async () => {
    const script = createModelScript({ expectCalls: { router: 1, critic: [1, 2], outline: 1 } });
    await script.handler(request(ROUTER));
    await script.handler(request(ROUTER));
    await script.handler(request(CRITIC, 'Planned actions:\nT-1 [search] "a" — b'));
    await script.handler(
      request("You are the inner search agent of a research plan, working on one subtask."),
    );
    const unknown = await script.handler(request("Something nobody wrote."));
    expect(unknown.kind).toBe("error");
    expect(script.violations()).toEqual([
      "unexpected call: role router: call 2 beyond the expected 1",
      "unexpected call: role inner-step: call 1 beyond the expected 0",
      "unexpected call: unrecognised role: Something nobody wrote.",
      "role outline: expected 1 call(s), got 0",
    ]);
    script.expectCalls({ router: 2, critic: 1, "inner-step": 1 });
    expect(script.violations()).toHaveLength(3);
  });

  it("is lenient without declarations: only unrecognised calls are unexpected", async () => {
    const script = createModelScript();
    await script.handler(request(ROUTER));
    await script.handler(request(ROUTER));
    expect(script.violations()).toEqual([]);
    expect(script.prompts.router[0]).toContain("<question>");
  });

  it("cuts JSON answers short for the declared share, reproducibly", async () => {
    const run = async (seed: number) => {
      const script = createModelScript({ truncateJson: { share: 0.5, seed } });
      const texts: string[] = [];
      for (let i = 0; i < 40; i++) {
        const reply = await script.handler(request(ROUTER));
        texts.push(reply.kind === "text" ? reply.text : "");
      }
      return texts;
    };
    const a = await run(5);
    expect(await run(5)).toEqual(a);
    const broken = a.filter((t) => {
      try {
        JSON.parse(t);
        return false;
      } catch {
        return true;
      }
    }).length;
    expect(broken).toBeGreaterThan(10);
    expect(broken).toBeLessThan(30);
  });

  it("hands a world's violations to the automatic after-each check", async () => {
    const world = await startResearchWorld({ expectCalls: { router: 1 } });
    try {
      expect(takeScriptViolations()).toEqual(["role router: expected 1 call(s), got 0"]);
      expect(takeScriptViolations()).toEqual([]);
    } finally {
      await world.close();
    }
  });
});
