/**
 * Unit tests of the sources listed to the mams report agent and its superscript citations: the
 * listing's order (fragment, memory, report; shown passages only), `<sup>[n]</sup>` read as the
 * n-th listed passage, ids in a superscript read as ids, unknown numbers reported and dropped.
 */

import { describe, expect, it } from "vitest";
import { EvidenceRegistry } from "../../core/evidence-registry.ts";
import { listSources, readSupCitations, renderListing } from "./writer-sources.ts";

const memory = [{ id: "F1", text: "A fact [E7, E2]", evidence: ["E7", "E2"] }];

describe("listSources", () => {
  it("lists the fragment's passages, then the memory's, then the report's, each once, shown ones only", () => {
    const listing = listSources(
      "[E2] Page — x\ntext\n\n[E5] Other\ntext",
      memory,
      "Said [E3] and [E999].",
      new Set(["E2", "E3", "E5", "E7"]),
    );
    expect(listing.ids).toEqual(["E2", "E5", "E7", "E3"]);
  });

  it("renders one numbered line per passage with its source's title and locator", () => {
    const evidence = new EvidenceRegistry();
    const source = evidence.addSource({
      kind: "web",
      url: "https://a.example/p",
      title: "Page A",
      fetchedAt: "2026-03-01T00:00:00Z",
    }).source;
    const id = evidence.addEvidence({
      sourceId: source.id,
      text: "t",
      retrievedBy: { tool: "web_search", callId: "c" },
    }).evidence.id;
    expect(renderListing({ ids: [id] }, evidence)).toBe(`[1] ${id} — Page A — https://a.example/p`);
    expect(renderListing({ ids: [] }, evidence)).toBe("(none yet)");
  });
});

describe("readSupCitations", () => {
  const listing = { ids: ["E2", "E5", "E7"] };

  it("reads <sup>[n]</sup> as the n-th listed passage, lists and ids included", () => {
    const read = readSupCitations(
      "The law<sup>[2]</sup> states; the survey<sup>[1, 3]</sup> and a page<sup>[E9]</sup>.",
      listing,
    );
    expect(read.text).toBe("The law [E5] states; the survey [E2, E7] and a page [E9].");
    expect(read.unknown).toEqual([]);
    expect(read.read).toBe(3);
  });

  it("reports a number naming no listed passage and leaves no trace of it", () => {
    const read = readSupCitations("A claim<sup>[99]</sup> and another<sup>[1][99]</sup>.", listing);
    expect(read.unknown).toEqual([99]);
    expect(read.text).toBe("A claim and another [E2].");
    expect(read.text).not.toContain("99");
  });

  it("keeps the line a superscript opens", () => {
    expect(readSupCitations("First.\n\n<sup>[1]</sup> Next.", listing).text).toBe("First.\n\n [E2] Next.");
  });

  it("leaves plain text, plain [n] and a superscript that is no citation alone", () => {
    const text = "Water is H<sup>2</sup>O; see [2]; x<sup>[a]</sup>.";
    expect(readSupCitations(text, listing)).toEqual({ text, unknown: [], read: 0 });
  });
});
