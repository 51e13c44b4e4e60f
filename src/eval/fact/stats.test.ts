import { describe, expect, it } from "vitest";
import { dedupeByUrl, statementKey } from "./dedupe.ts";
import type { FactValidated } from "./records.ts";
import { factStats, formatFactResultText, formatFactTable } from "./stats.ts";

const triple = (fact: string, url: string, ref_idx = 1) => ({ fact, ref_idx, url });
const group = (facts: string[], results: string[], error: string | null = null) => ({
  facts,
  url_content: null,
  validate_res: results.map((result, idx) => ({ idx, result })),
  validate_error: error,
});

const RECORDS: FactValidated[] = [
  {
    id: 1,
    citations: [
      triple("f1", "a"),
      triple("f2", "a"),
      triple("f3", "b"),
      triple("f4", "c"),
      triple("f5", "c"),
    ],
    citations_deduped: {
      a: group(["f1", "f2"], ["supported", "unknown"]),
      b: group(["f3"], ["unsupported"]),
      c: group(["f4", "f5"], [], "no reference: TOOL_ERROR: HTTP 404"),
    },
  },
  // No citation: not in the denominator.
  { id: 2, citations: [], citations_deduped: {} },
  {
    id: 3,
    citations: [triple("g1", "d"), triple("g2", "d"), triple("g3", "d"), triple("g4", "e")],
    citations_deduped: {
      // Anything but supported / unknown counts as unsupported, as in the benchmark.
      d: group(["g1", "g2", "g3"], ["supported", "supported", "partially supported"]),
      e: group(["g4"], [], "judge failed: role judge: no valid answer after 3 calls"),
    },
  },
  { id: 4, citations: "extraction failed", citations_deduped: {} },
];

describe("factStats", () => {
  it("pools verdicts, ignores unknowns, leaves out failed URLs and reports without citations", () => {
    const stats = factStats(RECORDS);
    expect(stats).toEqual({
      reports: 4,
      reportsWithCitations: 2,
      extractionFailed: 1,
      supported: 3,
      unsupported: 2,
      unknown: 1,
      urlsJudged: 3,
      fetchFailedUrls: 1,
      judgeFailedUrls: 1,
      failedStatements: 3,
      citationsPerReport: 2.5,
      effectiveCitations: 1.5,
      citationAccuracy: 0.6,
    });
    expect(formatFactResultText(stats)).toBe(
      "total_citations: 2.5\ntotal_valid_citations: 1.5\nvalid_rate: 0.6\n",
    );
    expect(formatFactTable(stats)).toBe(
      [
        "FACT",
        "  Effective citations:  1.5000",
        "  Citation accuracy:    0.6000",
        "  Citations per report: 2.5000",
        "  Reports:              4 (2 with citations)",
        "  Supported:            3",
        "  Unsupported:          2",
        "  Unknown (ignored):    1",
        "  URLs judged:          3",
        "  URLs failed:          2 (fetch 1, judge 1; 3 statements not judged)",
        "  Extraction failed:    1",
        "",
      ].join("\n"),
    );
  });

  it("has no figures without a report that cites", () => {
    const stats = factStats([{ id: 1, citations: [], citations_deduped: {} }]);
    expect([stats.effectiveCitations, stats.citationAccuracy, stats.citationsPerReport]).toEqual([
      null,
      null,
      null,
    ]);
    expect(formatFactResultText(stats)).toBe(
      "total_citations: n/a\ntotal_valid_citations: n/a\nvalid_rate: n/a\n",
    );
  });

  it("prints n/a, not 0, when every judgement failed", () => {
    const stats = factStats([
      {
        id: 1,
        citations: [triple("f", "a"), triple("g", "b")],
        citations_deduped: {
          a: group(["f"], [], "judge failed: role judge: no valid answer after 3 calls"),
          b: group(["g"], [], "no reference: TOOL_ERROR: HTTP 404"),
        },
      },
    ]);
    expect([stats.effectiveCitations, stats.citationAccuracy, stats.citationsPerReport]).toEqual([
      null,
      null,
      null,
    ]);
    expect(formatFactTable(stats)).not.toMatch(/0\.0000/);
    expect(formatFactTable(stats)).toMatch(/n\/a/);
  });

  it("prints whole-number figures as Python floats", () => {
    const stats = factStats([
      { id: 1, citations: [triple("f", "a")], citations_deduped: { a: group(["f"], ["supported"]) } },
    ]);
    expect(formatFactResultText(stats)).toBe(
      "total_citations: 1.0\ntotal_valid_citations: 1.0\nvalid_rate: 1.0\n",
    );
  });
});

describe("dedupeByUrl", () => {
  it("groups statements by URL in order and drops repeats within a URL only", () => {
    const groups = dedupeByUrl([
      triple("Prices rose.", "a"),
      triple("Stocks fell.", "b"),
      triple("prices  rose", "a"),
      triple("Prices rose.", "b"),
      triple("Imports grew.", "a"),
    ]);
    expect([...groups]).toEqual([
      ["a", ["Prices rose.", "Imports grew."]],
      ["b", ["Stocks fell.", "Prices rose."]],
    ]);
    expect(statementKey("Ｐrices  Rose。")).toBe("prices rose");
  });
});
