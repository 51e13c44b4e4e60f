/**
 * The usage of a resumed run is everything its attempts paid for: a minddr run killed three
 * times with model calls in flight (held unanswered at the model gate) and resumed to its end
 * reports as many model calls as the model server received — every answered call once, whether
 * its answer was replayed or not (a page read replayed whole by the tool journal skips its
 * reader call), and every call in flight at a kill counted as lost, at its estimated input and
 * whole output cap, priced. The run-resume event says how many were lost.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { modelGate } from "../../test/research/killed-run.ts";
import { killThriceAndResume, REORDERING_TOOLS } from "../../test/research/killed-thrice.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import type { DossierEvent } from "../core/events.ts";
import { openSqliteStore } from "../store/sqlite-store.ts";

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
const PRICE = { inputPerMTok: 3, outputPerMTok: 15 };

type Start = Extract<DossierEvent, { type: "llm-start" }>;
type End = Extract<DossierEvent, { type: "llm-end" }>;

/** The calls of each attempt that were started and never ended. */
function lostStarts(events: readonly DossierEvent[]): Start[] {
  const lost: Start[] = [];
  let open = new Map<string, Start>();
  for (const e of [...events, { type: "run-resume" } as DossierEvent]) {
    if (e.type === "run-start" || e.type === "run-resume") {
      lost.push(...open.values());
      open = new Map();
    } else if (e.type === "llm-start") open.set(e.callId, e);
    else if (e.type === "llm-end") open.delete(e.callId);
  }
  return lost;
}

describe("usage of a resumed run", () => {
  it("counts every call the model server received: answered ones once, those in flight at a kill as lost", async () => {
    const gate = modelGate(() => 30);
    world = await startResearchWorld({
      subtasks: 3,
      hold: gate.hold,
      ...REORDERING_TOOLS,
      expectCalls: CALLS,
    });
    // The `dossier` processes read the model's price from the configuration file of their directory.
    writeFileSync(
      join(world.home, "dossier.config.json"),
      JSON.stringify({ prices: { [world.config.model!]: PRICE } }),
    );
    const run = await killThriceAndResume(world, gate, { strategy: "minddr", kills: [1, 8, 15] });
    const store = openSqliteStore({ home: world.home });
    const record = (await store.runs.get(run.runId))!;
    await store.close();

    const received = world.model.requests.length;
    const answered = Object.values(world.script.counts).reduce((a, b) => a + b, 0);
    const lost = lostStarts(run.events);
    expect(received - answered, "requests held unanswered at the kills").toBeGreaterThan(0);
    // A call started just before a kill may not have reached the server yet: the run cannot tell
    // it from one held there, so it is lost too (counted at its estimate, never left out).
    expect(lost.length).toBeGreaterThanOrEqual(received - answered);
    expect(
      lost.length - (received - answered),
      "started calls killed before their request left (at most 3 in flight × 3 kills)",
    ).toBeLessThanOrEqual(9);
    expect(record.usage?.llmCalls, "model calls reported = calls answered + calls lost").toBe(
      answered + lost.length,
    );

    const resumes = run.events.filter((e) => e.type === "run-resume");
    expect(resumes.at(-1)).toMatchObject({ lostCalls: lost.length, earlierLlmCalls: expect.any(Number) });

    // The cost is the answered calls' own plus each lost call at its estimate and output cap.
    const live = run.events.filter((e): e is End => e.type === "llm-end" && e.ok && !e.replayed);
    // A kill can land after an answer was counted in the run's usage and before its event was
    // written: that call is then both answered and lost (reported once too many, never too few),
    // at most once per kill.
    const unrecorded = answered - live.length;
    expect(unrecorded, "answers whose event a kill cut off (at most one per kill)").toBeGreaterThanOrEqual(0);
    expect(unrecorded).toBeLessThanOrEqual(3);
    const paid = live.reduce((sum, e) => sum + (e.costUsd ?? Number.NaN), 0);
    const estimated = lost.reduce(
      (sum, s) =>
        sum +
        (Math.ceil(s.estimatedInputTokens) * PRICE.inputPerMTok + s.maxOutputTokens! * PRICE.outputPerMTok) /
          1_000_000,
      0,
    );
    expect(lost.every((s) => Number.isInteger(s.maxOutputTokens))).toBe(true);
    const outputs = live.reduce((sum, e) => sum + e.outputTokens!, 0);
    const capped = outputs + lost.reduce((sum, s) => sum + s.maxOutputTokens!, 0);
    if (unrecorded === 0) {
      expect(record.usage?.costUsd).toBeCloseTo(paid + estimated, 9);
      expect(record.usage?.outputTokens).toBe(capped);
    } else {
      // The cut-off answers' own cost and tokens are in the usage, not in any event.
      expect(record.usage!.costUsd! + 1e-9).toBeGreaterThan(paid + estimated);
      expect(record.usage!.outputTokens!).toBeGreaterThanOrEqual(capped);
    }
  }, 120_000);
});
