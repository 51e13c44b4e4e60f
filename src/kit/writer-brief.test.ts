import { describe, expect, it } from "vitest";
import { estimateTokens } from "../llm/token-estimate.ts";
import {
  citedInFindings,
  type Finding,
  findingsForSection,
  servesSection,
  specLines,
} from "./writer-brief.ts";

describe("writer brief", () => {
  it("a finding serves its sections, their parents and their children", () => {
    expect(servesSection(["2"], "2.1")).toBe(true);
    expect(servesSection(["2.1"], "2")).toBe(true);
    expect(servesSection(["2"], "2")).toBe(true);
    expect(servesSection(["2"], "12")).toBe(false);
    expect(servesSection(["1.2"], "1.3")).toBe(false);
    expect(servesSection(undefined, "1")).toBe(false);
  });

  it("gives a section its own findings first, then general ones by relevance, never those of other sections", () => {
    const findings: Finding[] = [
      { label: "T-9 other", text: "about section three", sections: ["3"] },
      { label: "T-1 survey", text: "battery prices fell sharply [E1]" },
      { label: "T-2 survey", text: "unrelated weather notes [E2]" },
      { label: "T-5 search", text: "adoption grew [E5]", sections: ["2"] },
    ];
    const chosen = findingsForSection({
      findings,
      sectionId: "2.1",
      text: "battery prices",
      maxTokens: 1000,
    });
    expect(chosen.map((f) => f.label)).toEqual(["T-5 search", "T-1 survey", "T-2 survey"]);
    expect(citedInFindings(chosen)).toEqual(["E5", "E1", "E2"]);
  });

  it("stays within the token budget and cuts long findings", () => {
    const long = "x".repeat(10_000);
    const findings: Finding[] = Array.from({ length: 20 }, (_, i) => ({
      label: `T-${i}`,
      text: long,
      sections: ["1"],
    }));
    const chosen = findingsForSection({ findings, sectionId: "1", text: "x", maxTokens: 2000 });
    const used = chosen.reduce((n, f) => n + estimateTokens(f.label) + estimateTokens(f.text) + 4, 0);
    expect(used).toBeLessThanOrEqual(2000);
    expect(chosen.length).toBeGreaterThan(0);
    for (const f of chosen) expect(f.text.length).toBeLessThanOrEqual(2401);
  });

  it("renders the spec's time scope, constraints and required outputs, and nothing when absent", () => {
    expect(specLines(undefined)).toEqual([]);
    expect(specLines({ constraints: [], requiredOutputs: [] })).toEqual([]);
    const lines = specLines({
      timeScope: "2024 to 2026",
      constraints: ["EU only"],
      requiredOutputs: ["a table"],
    });
    expect(lines[0]).toBe("Time scope: 2024 to 2026");
    expect(lines[1]).toBe("Constraints: EU only");
    expect(lines[2]).toContain("a table");
  });
});
