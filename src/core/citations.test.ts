import { describe, expect, it } from "vitest";
import { CITATION_NEEDED, citationPass, citedNumbers, renderReferences } from "./citations.ts";
import { EvidenceRegistry } from "./evidence-registry.ts";

function registry() {
  const r = new EvidenceRegistry();
  const a = r.addSource({
    kind: "web",
    url: "https://a.example/x",
    title: "Alpha",
    fetchedAt: "2026-11-20T10:00:00Z",
  }).source;
  const b = r.addSource({
    kind: "web",
    url: "https://b.example/y",
    title: "Beta",
    fetchedAt: "2026-11-21T10:00:00Z",
  }).source;
  const c = r.addSource({
    kind: "local",
    path: "docs/report.pdf",
    anchor: "page=3",
    title: "Report",
    fetchedAt: "2026-11-22T08:00:00Z",
  }).source;
  const by = { tool: "web_search", callId: "t1" };
  const e1 = r.addEvidence({ sourceId: a.id, text: "alpha one", retrievedBy: by }).evidence; // E1 (S1)
  const e2 = r.addEvidence({ sourceId: b.id, text: "beta one", retrievedBy: by }).evidence; // E2 (S2)
  const e3 = r.addEvidence({ sourceId: a.id, text: "alpha two", retrievedBy: by }).evidence; // E3 (S1)
  const e4 = r.addEvidence({ sourceId: c.id, text: "report page", retrievedBy: by }).evidence; // E4 (S3)
  return { r, ids: [e1.id, e2.id, e3.id, e4.id] };
}

const all = new Set(["E1", "E2", "E3", "E4"]);

describe("citationPass", () => {
  it("numbers sources by first appearance and reuses a number for a repeated source", () => {
    const { r } = registry();
    const out = citationPass({
      lookup: r,
      parts: [
        { text: "B first [E2]. A next [E1]. A again via other evidence [E3]. B again [E2].", allowed: all },
      ],
    });
    expect(out.parts[0]).toBe("B first [1]. A next [2]. A again via other evidence [2]. B again [1].");
    expect(out.references.map((x) => [x.number, x.sourceId])).toEqual([
      [1, "S2"],
      [2, "S1"],
    ]);
    expect(out.evidenceByNumber).toEqual({ 1: ["E2"], 2: ["E1", "E3"] });
    expect(out.citationCount).toBe(4);
    expect(out.issues).toEqual([]);
  });

  it("accepts multi-id tokens, merging ids of one source and sorting numbers", () => {
    const { r } = registry();
    const out = citationPass({
      lookup: r,
      parts: [{ text: "X [E4]. Y [E2, E1; E3]. Z [e2,E4]", allowed: all }],
    });
    expect(out.parts[0]).toBe("X [1]. Y [2, 3]. Z [1, 2]");
    expect(out.references.map((x) => x.sourceId)).toEqual(["S3", "S2", "S1"]);
  });

  it("drops ids unknown to the registry and ids not given to that writer call", () => {
    const { r } = registry();
    const out = citationPass({
      lookup: r,
      parts: [
        { text: "First part cites [E1] and [E2].", allowed: new Set(["E1"]) },
        { text: "Second [E99] and [E2, E9] and [E3].", allowed: new Set(["E2", "E3"]) },
      ],
    });
    expect(out.parts).toEqual(["First part cites [1] and.", "Second and [2] and [1]."]);
    expect(out.issues).toEqual([
      { part: 0, token: "[E2]", id: "E2", reason: "not-given" },
      { part: 1, token: "[E99]", id: "E99", reason: "unknown-evidence" },
      { part: 1, token: "[E2, E9]", id: "E9", reason: "unknown-evidence" },
    ]);
    // Every number in the output resolves to a reference.
    const numbers = citedNumbers(out.markdown);
    expect(numbers).toEqual(out.references.map((x) => x.number));
  });

  it("flags instead of dropping in flag mode", () => {
    const { r } = registry();
    const out = citationPass({ lookup: r, mode: "flag", parts: [{ text: "Claim [E42].", allowed: all }] });
    expect(out.parts[0]).toBe(`Claim ${CITATION_NEEDED}.`);
    expect(out.references).toEqual([]);
    expect(out.referencesMarkdown).toBe("");
  });

  it("never trusts bare numeric citations written by a model", () => {
    const { r } = registry();
    const out = citationPass({
      lookup: r,
      parts: [{ text: "Old style [3] and [1, 2] but keep [link](http://x) and [E1].", allowed: all }],
    });
    expect(out.parts[0]).toBe("Old style and but keep [link](http://x) and [1].");
    expect(out.issues.map((i) => i.reason)).toEqual(["bare-number", "bare-number", "bare-number"]);
  });

  it("takes evidence tokens out of code spans and fenced blocks, citing after them; bare numbers in code stay", () => {
    const { r } = registry();
    const text = "Use `arr[E1]` and\n```\nx = [1, 2] [E2]\n```\nthen [E1].";
    const out = citationPass({ lookup: r, parts: [{ text, allowed: all }] });
    expect(out.parts[0]).toBe("Use `arr` [1] and\n```\nx = [1, 2]\n```\n[2]\nthen [1].");
  });

  it("a code span that is only a token becomes the citation; an invalid token in code is removed", () => {
    const { r } = registry();
    const text = "Valid `[E2]`, invented `[E9999]`, mixed `f(x) [E9999] [e4]` and `[E3, E77]`.";
    const out = citationPass({ lookup: r, parts: [{ text, allowed: all }] });
    expect(out.parts[0]).toBe("Valid [1], invented , mixed `f(x)` [2] and [3].");
    expect(out.issues).toEqual([
      { part: 0, token: "[E9999]", id: "E9999", reason: "unknown-evidence" },
      { part: 0, token: "[E9999]", id: "E9999", reason: "unknown-evidence" },
      { part: 0, token: "[E3, E77]", id: "E77", reason: "unknown-evidence" },
    ]);
    expect(out.citationCount).toBe(3);
    expect(citedNumbers(out.markdown)).toEqual(out.references.map((x) => x.number));
  });

  it("closes an unclosed fence before the citation its tokens make, and flags invalid code tokens in flag mode", () => {
    const { r } = registry();
    const unclosed = citationPass({ lookup: r, parts: [{ text: "Data:\n~~~\nrow 1 [E1]\n", allowed: all }] });
    expect(unclosed.parts[0]).toBe("Data:\n~~~\nrow 1\n~~~\n[1]");
    const flagged = citationPass({
      lookup: r,
      mode: "flag",
      parts: [{ text: "See `cfg [E42]`.", allowed: all }],
    });
    expect(flagged.parts[0]).toBe(`See \`cfg\` ${CITATION_NEEDED}.`);
  });

  it("keeps line breaks when a token at the start of a line is dropped", () => {
    const { r } = registry();
    const out = citationPass({ lookup: r, parts: [{ text: "One.\n\n[E77] Two.", allowed: all }] });
    expect(out.parts[0]).toBe("One.\n\n Two.");
  });

  it("accepts full-width brackets used by CJK writers", () => {
    const { r } = registry();
    const out = citationPass({
      lookup: r,
      parts: [{ text: "中文句子【E2】。另一句［E1、E4］。", allowed: all }],
    });
    expect(out.parts[0]).toBe("中文句子[1]。另一句[2, 3]。");
  });

  it("builds a complete References section in number order", () => {
    const { r } = registry();
    const out = citationPass({
      lookup: r,
      referencesHeading: "Sources",
      parts: [{ text: "a [E4] b [E1] c [E2]", allowed: all }],
    });
    expect(out.references).toEqual([
      {
        number: 1,
        sourceId: "S3",
        kind: "local",
        title: "Report",
        locator: "docs/report.pdf#page=3",
        accessed: "2026-11-22",
      },
      {
        number: 2,
        sourceId: "S1",
        kind: "web",
        title: "Alpha",
        locator: "https://a.example/x",
        accessed: "2026-11-20",
      },
      {
        number: 3,
        sourceId: "S2",
        kind: "web",
        title: "Beta",
        locator: "https://b.example/y",
        accessed: "2026-11-21",
      },
    ]);
    expect(out.referencesMarkdown).toBe(
      [
        "## Sources",
        "",
        "1. Report. `docs/report.pdf#page=3` (local document, accessed 2026-11-22)",
        "2. Alpha. <https://a.example/x> (accessed 2026-11-20)",
        "3. Beta. <https://b.example/y> (accessed 2026-11-21)",
        "",
      ].join("\n"),
    );
    expect(out.markdown.endsWith(out.referencesMarkdown)).toBe(true);
  });

  it("numbers across parts in document order", () => {
    const { r } = registry();
    const out = citationPass({
      lookup: r,
      parts: [
        { text: "p1 [E3]", allowed: all },
        { text: "p2 [E4] [E1]", allowed: all },
      ],
    });
    expect(out.parts).toEqual(["p1 [1]", "p2 [2] [1]"]);
    expect(out.body).toBe("p1 [1]\n\np2 [2] [1]");
  });
});

describe("renderReferences", () => {
  it("escapes Markdown in titles", () => {
    const md = renderReferences([
      {
        number: 1,
        sourceId: "S1",
        kind: "web",
        title: "A *bold* [x]",
        locator: "https://x.example",
        accessed: "2026-01-01",
      },
    ]);
    expect(md).toContain("1. A \\*bold\\* \\[x\\]. <https://x.example>");
  });
});
