/**
 * The library side of follow-up questions: `dossier.ask(question, { about })` over a finished
 * run of the loopback research world (strict scripted model) answers from the run's evidence
 * with no search; bad input is a coded error before any model call.
 */

import { afterEach, describe, expect, it } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { isDossierError } from "../core/errors.ts";
import type { FollowUpResult } from "./ask-about.ts";
import { createDossier, type Dossier } from "./dossier.ts";

let world: ResearchWorld | undefined;
let dossier: Dossier | undefined;
afterEach(async () => {
  await dossier?.close();
  await world?.close();
  dossier = undefined;
  world = undefined;
});

const PARENT = { "smtl-plan": 1, "smtl-step": 2, reader: 1 } as const;

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "resolved";
  } catch (error) {
    return isDossierError(error) ? error.code : String(error);
  }
}

describe("dossier.ask(question, { about })", () => {
  it("answers a follow-up from the finished run's evidence, as a child run naming its parent", async () => {
    world = await startResearchWorld({ expectCalls: PARENT });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    const parent = await dossier.ask("Which topic grew by 11 percent in 2025?");
    expect(parent.status).toBe("completed");
    world.script.expectCalls({ ...PARENT, "follow-up": 1 });
    const result = (await dossier.ask("And topic 2?", { about: parent.runId })) as FollowUpResult;
    expect(result).toMatchObject({
      about: parent.runId,
      fromRunEvidence: true,
      searches: [],
      status: "completed",
    });
    // The same number as the parent's answer gave page 2.
    const page2 = parent.citations.find((c) => /\/page\/2$/.test(c.locator))!;
    expect(result.citations.map((c) => c.number)).toEqual([page2.number]);
    const child = await dossier.runs.get(result.runId);
    expect(child.strategy).toBe("follow-up");
    expect(JSON.stringify(child.options)).toContain(parent.runId);
    const events = await dossier.runs.events(result.runId);
    expect(events.some((e) => e.type === "tool-start")).toBe(false);
  });

  it("refuses an unknown run, an empty question and deep-search options before any model call", async () => {
    world = await startResearchWorld({ expectCalls: {} });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    expect(await codeOf(dossier.ask("And topic 2?", { about: "no-such-run" }))).toBe("NOT_FOUND");
    expect(await codeOf(dossier.ask("  ", { about: "no-such-run" }))).toBe("INPUT_INVALID");
    expect(await codeOf(dossier.ask("And topic 2?", { about: "x", steps: 3 }))).toBe("INPUT_INVALID");
    expect(world.model.requests).toHaveLength(0);
  });
});
