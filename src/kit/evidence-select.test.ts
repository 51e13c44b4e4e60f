import { describe, expect, it } from "vitest";
import { selectEvidence, withoutRepeats } from "./evidence-select.ts";

const ev = (id: string, sourceId: string, text: string) => ({ id, sourceId, text });

describe("withoutRepeats", () => {
  const snippet = ev("E1", "S1", "Costs fell 12 percent in 2025. Analysts attribute the change in");
  const first = ev("E2", "S1", "Costs fell 12 percent in 2025.");
  const second = ev("E3", "S1", "Analysts attribute the change in costs to scale.");
  const elsewhere = ev("E4", "S2", "Costs fell 12 percent in 2025.");

  it("drops a cut-off snippet whose every sentence the read passages of its source already carry", () => {
    expect(withoutRepeats([snippet, first, second, elsewhere]).map((e) => e.id)).toEqual(["E2", "E3", "E4"]);
  });

  it("keeps what it is told to keep, and the same text from another source", () => {
    expect(withoutRepeats([snippet, first, second, elsewhere], new Set(["E1"])).map((e) => e.id)).toEqual([
      "E1",
      "E3",
      "E4",
    ]);
    const twice = ev("E5", "S1", "Costs fell 12 percent in 2025.");
    expect(withoutRepeats([first, twice]).map((e) => e.id)).toEqual(["E2"]);
  });

  it("selectEvidence never sends a repeat unless a finding or the outline named it", () => {
    const pool = [snippet, first, second, elsewhere].map((e) => ({ ...e, sourceType: "web" }) as never);
    expect(selectEvidence({ text: "costs", pool }).map((e: { id: string }) => e.id)).not.toContain("E1");
    expect(
      selectEvidence({ text: "costs", pool, preferred: ["E1"] }).map((e: { id: string }) => e.id),
    ).toContain("E1");
  });
});
