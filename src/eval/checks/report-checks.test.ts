import { describe, expect, it } from "vitest";
import { reportCheckFiguresSchema, runReportChecks } from "./report-checks.ts";

describe("runReportChecks", () => {
  it("returns every check and figures that validate against the stored schema", () => {
    const md = [
      "# EV market",
      "",
      "The market will reach $50 billion by 2024.",
      "",
      "## Data",
      "",
      "| Year | Sales |",
      "| --- | --- |",
      "| 2023 | 14M |",
      "",
      "| a | b |",
      "| 1 |",
      "",
      "#### Deep",
      "",
      "According to the IEA, sales will reach 20M by 2025.",
    ].join("\n");
    const checks = runReportChecks(md, { currentDate: "2026-03-01", expectedLanguage: "en" });
    expect(checks.figures).toEqual({
      tables: { total: 2, valid: 1, validRate: 0.5 },
      headings: {
        count: 3,
        errors: 1,
        skippedLevels: 1,
        emptySections: 0,
        duplicateTitles: 0,
        titles: ["EV market", "Data", "Deep"],
      },
      temporal: {
        currentDate: "2026-03-01",
        sentences: 6,
        predictive: 2,
        pastPredictive: 2,
        flagged: 1,
        errorRate: 0.5,
        verified: false,
      },
      language: { expected: "en", detected: "en", share: 1 },
    });
    expect(reportCheckFiguresSchema.parse(checks.figures)).toEqual(checks.figures);
    expect(runReportChecks(md, { currentDate: "2026-03-01" }).language).toBeNull();
  });
});
