import { describe, expect, it } from "vitest";
import { recordedRunSchema } from "./recorded-run.ts";
import { fixtureCall, fixtureRun } from "./test-fixtures.ts";

describe("recorded runs", () => {
  it("accepts a run whose calls are its own, each once", () => {
    const run = fixtureRun({
      calls: [fixtureCall({ callId: "L1", step: 1 }), fixtureCall({ callId: "L2", step: 2 })],
    });
    expect(recordedRunSchema.parse(run)).toEqual(run);
  });

  it("refuses a call of another run and a call recorded twice", () => {
    const foreign = fixtureRun({ calls: [{ ...fixtureCall({ callId: "L1", step: 1 }), runId: "other" }] });
    expect(recordedRunSchema.safeParse(foreign).success).toBe(false);
    const twice = fixtureRun({
      calls: [fixtureCall({ callId: "L1", step: 1 }), fixtureCall({ callId: "L1", step: 2 })],
    });
    expect(recordedRunSchema.safeParse(twice).success).toBe(false);
  });
});
