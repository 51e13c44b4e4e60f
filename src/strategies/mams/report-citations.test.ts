/**
 * The paper's citation form in a mams report (App. C.8): `<sup>[n]</sup>` after the cited term,
 * with a References list of numbered entries, mapped through the entries' URLs to the evidence
 * shown to the report agent; a number naming no page shown is dropped and named; evidence ids
 * written inside a superscript are read as ids.
 */

import { describe, expect, it } from "vitest";
import type { EventInput } from "../../core/events.ts";
import { EvidenceRegistry } from "../../core/evidence-registry.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { finishMamsReport } from "./report.ts";

const by = { tool: "read_page", callId: "c1" };

function world() {
  const evidence = new EvidenceRegistry();
  const page = (url: string, title: string, text: string) => {
    const source = evidence.addSource({ kind: "web", url, title, fetchedAt: "2026-03-01T00:00:00Z" }).source;
    return evidence.addEvidence({ sourceId: source.id, text, retrievedBy: by }).evidence.id;
  };
  const e1 = page("https://grid.example/winter", "Winter peaks", "Winter demand peaks in January.");
  const e2 = page("https://pumps.example/cold", "Cold climate", "Heat pumps kept heating at minus twenty.");
  const events: EventInput[] = [];
  const ctx = {
    runId: "run-1",
    query: "How do heat pumps cope with cold?",
    options: { strategy: "mams" },
    currentDate: "2026-03-01",
    clock: { now: () => Date.parse("2026-03-01T00:00:00Z") },
    evidence,
    emit: (e: EventInput) => {
      events.push(e);
      return e;
    },
    usage: () => ({}),
  } as unknown as RunContext;
  return { ctx, events, e1, e2 };
}

describe("mams report citations", () => {
  it("maps <sup>[n]</sup> through the References' URLs to the evidence shown; an unknown number is dropped and named", () => {
    const { ctx, events, e1, e2 } = world();
    const text = [
      "# Heat pumps in the cold",
      "",
      "## Findings",
      "",
      "Heat pumps<sup>[2]</sup> kept heating at minus twenty, while demand<sup>[1]</sup> peaks in January; a claim<sup>[99]</sup> cites nothing, and one cites an id<sup>[E1]</sup>.",
      "",
      "## References",
      "",
      "[1] Winter peaks, https://grid.example/winter",
      "[2] Cold climate, https://pumps.example/cold/",
    ].join("\n");
    const { report } = finishMamsReport(ctx, {
      text,
      allowed: new Set([e1, e2]),
      language: "en",
      stopReason: "completed",
    });
    expect(report.references.map((r) => r.locator)).toEqual([
      "https://pumps.example/cold",
      "https://grid.example/winter",
    ]);
    expect(report.body).toContain("Heat pumps[1] kept heating");
    expect(report.body).not.toContain("<sup>");
    expect(report.body).not.toContain("99");
    expect(report.checks.citations.byReason).toEqual({ "bare-number": 1 });
    expect(events.filter((e) => e.type === "warning").map((e) => (e as { code: string }).code)).toEqual([
      "CITATION_UNRESOLVED",
    ]);
  });
});
