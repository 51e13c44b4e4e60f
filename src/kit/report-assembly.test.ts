/**
 * The report assembly every strategy ends with: the citation pass over the written parts (each
 * part may cite only the evidence its writer was given; sources numbered by first citation),
 * the title and body made safe, References in the report's language appended, and the report
 * checks' figures stored with the report.
 */

import { describe, expect, it } from "vitest";
import { EvidenceRegistry } from "../core/evidence-registry.ts";
import type { Outline } from "../core/outline.ts";
import type { UsageTotals } from "../core/usage.ts";
import { assembleReport, type ReportPart } from "./report-assembly.ts";
import type { RunContext } from "./run-context.ts";

const by = { tool: "fetch", callId: "c1" };
const OUTLINE = { title: "Heat pumps in the cold", sections: [] } as unknown as Outline;
const USAGE = { calls: 3 } as unknown as UsageTotals;
const NOW = Date.parse("2026-03-01T12:34:56.000Z");

/** S1 (E1, E3), S2 (E2), S3 (E4): E1 and E3 are passages of one page. */
function registry(): EvidenceRegistry {
  const r = new EvidenceRegistry();
  const s1 = r.addSource({
    kind: "web",
    url: "https://energy.example/cold",
    title: "Cold  climate\nfield test",
    fetchedAt: "2026-02-20T08:00:00Z",
  }).source;
  const s2 = r.addSource({
    kind: "web",
    url: "https://grid.example/winter",
    title: "Winter <b>peaks</b>",
    fetchedAt: "2026-02-21T08:00:00Z",
  }).source;
  const s3 = r.addSource({
    kind: "local",
    path: "notes.pdf",
    anchor: "page=2",
    title: "",
    fetchedAt: "2026-02-22",
  }).source;
  r.addEvidence({
    sourceId: s1.id,
    text: "Outdoor units kept heating at minus twenty degrees",
    retrievedBy: by,
  });
  r.addEvidence({ sourceId: s2.id, text: "Winter demand peaks strain the grid in January", retrievedBy: by });
  r.addEvidence({ sourceId: s1.id, text: "defrost cycles cut output by a fifth", retrievedBy: by });
  r.addEvidence({ sourceId: s3.id, text: "Installer quotes ranged widely", retrievedBy: by });
  return r;
}

function context(evidence: EvidenceRegistry): RunContext {
  return {
    runId: "run-7",
    query: "How do heat pumps cope with cold?",
    options: { strategy: "graph" },
    currentDate: "2026-03-01",
    clock: { now: () => NOW },
    evidence,
    usage: () => USAGE,
  } as unknown as RunContext;
}

const part = (text: string, allowed: readonly string[] | "all"): ReportPart => ({
  text,
  allowed: allowed === "all" ? "all" : new Set(allowed),
});

describe("assembleReport", () => {
  it("numbers the cited sources by first citation and drops what a part was not given, unknown ids and bare numbers", () => {
    const evidence = registry();
    const report = assembleReport(context(evidence), {
      title: "  Heat pumps\u0007 in\n the   cold ",
      outline: OUTLINE,
      language: "en",
      stopReason: "done",
      parts: [
        part(
          "## Field results\n\nOutdoor units kept heating at minus twenty degrees [E1]. Winter demand peaks strain the grid in January [E2, E1].",
          ["E1", "E2"],
        ),
        part(
          "## Costs\n\nInstaller quotes ranged widely [E4]. Some quotes were invented [E9] or uncited [E2] or numbered [7] [8].",
          ["E4"],
        ),
      ],
    });
    const body = [
      "# Heat pumps in the cold",
      "",
      "## Field results",
      "",
      "Outdoor units kept heating at minus twenty degrees [1]. Winter demand peaks strain the grid in January [1, 2].",
      "",
      "## Costs",
      "",
      "Installer quotes ranged widely [3]. Some quotes were invented or uncited or numbered.",
      "",
    ].join("\n");
    expect(report.title).toBe("Heat pumps in the cold");
    expect(report.body).toBe(body);
    // The References are in the report's language, their untrusted titles escaped.
    expect(report.markdown).toBe(
      [
        body,
        "## References",
        "",
        "1. Cold climate field test. <https://energy.example/cold> (accessed 2026-02-20)",
        "2. Winter &lt;b>peaks&lt;/b>. <https://grid.example/winter> (accessed 2026-02-21)",
        "3. notes.pdf#page=2. `notes.pdf#page=2` (local document, accessed 2026-02-22)",
        "",
      ].join("\n"),
    );
    expect(report.references.map((r) => [r.number, r.sourceId, r.title])).toEqual([
      [1, "S1", "Cold climate field test"],
      [2, "S2", "Winter <b>peaks</b>"],
      [3, "S3", "notes.pdf#page=2"],
    ]);
    expect(report.evidenceByNumber).toEqual({ 1: ["E1"], 2: ["E2"], 3: ["E4"] });
    expect(report.checks.citations).toEqual({
      kept: 3,
      dropped: 4,
      byReason: { "unknown-evidence": 1, "not-given": 1, "bare-number": 2 },
    });
    expect(report.checks.grounding).toEqual({ sentences: 3, supported: 3 });
    expect(report.checks.groundedShare).toBe(1);
    // The run's identity, sources, evidence and usage as they are; no notice unless one is given.
    expect(report).toMatchObject({
      runId: "run-7",
      query: "How do heat pumps cope with cold?",
      strategy: "graph",
      createdAt: "2026-03-01T12:34:56.000Z",
      currentDate: "2026-03-01",
      language: "en",
      stopReason: "done",
    });
    expect(report.outline).toBe(OUTLINE);
    expect(report.usage).toBe(USAGE);
    expect(report.sources).toEqual(evidence.sources());
    expect(report.evidence).toEqual(evidence.evidence());
    expect(report.sources.map((s) => s.id)).toEqual(["S1", "S2", "S3"]);
    expect(report.evidence.map((e) => e.id)).toEqual(["E1", "E2", "E3", "E4"]);
    expect("notice" in report).toBe(false);
  });

  it("checks the safe body: title escaped, a table repaired, headings, past predictions, grounding per number", () => {
    const report = assembleReport(context(registry()), {
      title: "<script>x</script> Plan",
      outline: OUTLINE,
      language: "en",
      stopReason: "budget",
      notice: "Offline: no model was called.",
      parts: [
        part(
          "## Results\n\n#### Deep\n\nOutdoor units kept heating at minus twenty degrees [E1].\n\n| a | b |\n| 1 | 2 |\n\nSales will reach five million units in 2025 [E2].",
          "all",
        ),
        // Supported only by both passages of source 1 together (their words side by side).
        part(
          "Degrees and defrost dominate winter reports [E1, E3]. Prices fell sharply last year [E4].",
          "all",
        ),
      ],
    });
    // The title is stored as written (renderers escape it); the Markdown escapes its HTML.
    expect(report.title).toBe("<script>x</script> Plan");
    expect(report.body).toBe(
      [
        "# &lt;script>x&lt;/script> Plan",
        "",
        "## Results",
        "",
        "#### Deep",
        "",
        "Outdoor units kept heating at minus twenty degrees [1].",
        "",
        "| a | b |",
        "| --- | --- |",
        "| 1 | 2 |",
        "",
        "Sales will reach five million units in 2025 [2].",
        "",
        "Degrees and defrost dominate winter reports [1]. Prices fell sharply last year [3].",
        "",
      ].join("\n"),
    );
    expect(report.evidenceByNumber).toEqual({ 1: ["E1", "E3"], 2: ["E2"], 3: ["E4"] });
    expect(report.checks).toEqual({
      citations: { kept: 4, dropped: 0, byReason: {} },
      groundedShare: 0.5,
      grounding: { sentences: 4, supported: 2 },
      tables: { total: 1, valid: 1, repaired: 1 },
      headings: {
        problems: 1,
        details: ["line 5: level 4 heading directly under level 2"],
        titles: ["&lt;script>x&lt;/script> Plan", "Results", "Deep"],
      },
      temporal: {
        predictive: 1,
        flagged: 1,
        errorRate: 1,
        details: ["Sales will reach five million units in 2025 ."],
      },
      language: { expected: "en", detected: "en", share: 1 },
    });
    expect(report.notice).toBe("Offline: no model was called.");
    expect(report.stopReason).toBe("budget");
  });

  it("writes the References heading and checks the language of the report's language", () => {
    const report = assembleReport(context(registry()), {
      title: "Wärmepumpen",
      outline: OUTLINE,
      language: "de",
      stopReason: "done",
      parts: [
        part(
          "## Ergebnisse\n\nDie Außengeräte heizten bei minus zwanzig Grad weiter, sagt der Feldtest [E1].",
          "all",
        ),
      ],
    });
    expect(report.markdown).toBe(
      [
        "# Wärmepumpen",
        "",
        "## Ergebnisse",
        "",
        "Die Außengeräte heizten bei minus zwanzig Grad weiter, sagt der Feldtest [1].",
        "",
        "## Quellen",
        "",
        "1. Cold climate field test. <https://energy.example/cold> (abgerufen am 2026-02-20)",
        "",
      ].join("\n"),
    );
    expect(report.checks.language).toEqual({ expected: "de", detected: "de", share: 1 });
    expect(report.language).toBe("de");
  });

  it("leaves a report that cites nothing without References and its grounding share null", () => {
    const report = assembleReport(context(registry()), {
      title: "Plan",
      outline: OUTLINE,
      // No language to check against: none is detected.
      language: "",
      stopReason: "done",
      parts: [part("Nothing here is cited.", "all"), part("", [])],
    });
    expect(report.body).toBe("# Plan\n\nNothing here is cited.\n");
    expect(report.markdown).toBe(report.body);
    expect(report.references).toEqual([]);
    expect(report.evidenceByNumber).toEqual({});
    expect(report.checks.citations).toEqual({ kept: 0, dropped: 0, byReason: {} });
    expect(report.checks.groundedShare).toBeNull();
    expect(report.checks.grounding).toEqual({ sentences: 0, supported: 0 });
    expect(report.checks.language).toEqual({ expected: "", detected: "und", share: null });
  });
});
