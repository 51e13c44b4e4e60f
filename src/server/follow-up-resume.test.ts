/**
 * POST /v1/runs/{id}/resume takes up a follow-up question (`ask --about`) like any run, on a
 * server whose Dossier never asked one (loopback research world, strict scripted model): the
 * follow-up cancelled at its writer call completes with the parent report's number, and every
 * citation of its answer resolves from its own event log.
 */

import { afterEach, describe, expect, it } from "vitest";
import { worldCancellingFollowUp } from "../../test/research/follow-up-world.ts";
import type { ResearchWorld } from "../../test/research/world.ts";
import { sourceLocator } from "../core/source.ts";
import { createDossier, type Dossier } from "../runtime/dossier.ts";
import { earlierEvidence } from "../runtime/earlier-evidence.ts";
import type { AskCitation } from "../strategies/smtl/answer.ts";
import { type RunningServer, startServer } from "./listen.ts";

let world: ResearchWorld | undefined;
const dossiers: Dossier[] = [];
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  for (const d of dossiers.splice(0)) await d.close();
  await world?.close();
  server = world = undefined;
});

const PARENT = { "smtl-plan": 1, "smtl-step": 2, reader: 1 } as const;

describe("POST /v1/runs/{id}/resume of a follow-up", () => {
  it("completes a cancelled follow-up on a server that never asked one; its citations resolve from its log", async () => {
    // The follow-up's first writer call is cancelled in flight: answered (to nobody) at the end.
    const held = await worldCancellingFollowUp(PARENT);
    world = held.world;
    const { controller, release } = held;
    const asker = createDossier({ config: world.config, cwd: world.home, env: {} });
    dossiers.push(asker);
    const parent = await asker.ask("Which topic grew by 11 percent in 2025?");
    world.script.expectCalls({ ...PARENT, "follow-up": 2 });
    const cancelled = await asker.ask("And topic 2?", { about: parent.runId, signal: controller.signal });
    expect(cancelled.status).toBe("cancelled");

    const serving = createDossier({ config: world.config, cwd: world.home, env: {} });
    dossiers.push(serving);
    server = await startServer({ dossier: serving, port: 0 });
    const res = await fetch(`${server.url}/v1/runs/${cancelled.runId}/resume`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.token}` },
    });
    expect(res.status).toBe(202);
    expect((await serving.runs.handle(cancelled.runId)!.done).status).toBe("completed");

    const events = await serving.runs.events(cancelled.runId);
    const ready = events.filter((e) => e.type === "answer-ready").at(-1);
    expect(ready?.type).toBe("answer-ready");
    const page2 = parent.citations.find((c) => /\/page\/2$/.test(c.locator))!;
    const citations = (ready as { citations: AskCitation[] }).citations;
    expect(citations.map((c) => c.number)).toEqual([page2.number]);
    const { sources, evidence } = earlierEvidence(events);
    for (const c of citations) {
      expect(c.evidence.length).toBeGreaterThan(0);
      for (const id of c.evidence) {
        const passage = evidence.find((e) => e.id === id);
        const source = sources.find((s) => s.id === passage?.sourceId);
        expect(source && sourceLocator(source)).toBe(c.locator);
      }
    }
    release();
    const script = world.script;
    await expect.poll(() => script.counts["follow-up"]).toBe(2);
  });
});
