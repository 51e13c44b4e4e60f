import { describe, expect, it } from "vitest";
import type { RunRecord } from "../core/run.ts";
import { requestOfRun } from "./resume.ts";

describe("the request a resumed run is taken up with", () => {
  it("keeps the run's own options, its source filter included", () => {
    const record = {
      id: "r1",
      query: "How do heat pumps perform in the cold?",
      strategy: "graph",
      options: {
        sources: "web",
        formats: ["md"],
        currentDate: "2026-03-01",
        sourceFilter: { domains: ["energy.example"], excludeDomains: ["spam.example"], since: "2025-01-01" },
      },
    } as unknown as RunRecord;
    expect(requestOfRun(record)).toMatchObject({
      query: record.query,
      strategy: "graph",
      sourceFilter: { domains: ["energy.example"], excludeDomains: ["spam.example"], since: "2025-01-01" },
    });
  });
});
