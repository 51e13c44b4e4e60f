import { describe, expect, it } from "vitest";
import { DossierError } from "./errors.ts";
import { EvidenceRegistry } from "./evidence-registry.ts";

const by = { tool: "web_search", callId: "c1" };

describe("EvidenceRegistry", () => {
  it("assigns S<n> and E<n> ids in order and deduplicates sources by normalised URL", () => {
    const r = new EvidenceRegistry();
    const s1 = r.addSource({
      kind: "web",
      url: "https://www.Example.com/a/?utm_source=x",
      title: "A",
      fetchedAt: "t",
    });
    const s2 = r.addSource({ kind: "web", url: "http://example.com/a", title: "A again", fetchedAt: "t" });
    const s3 = r.addSource({ kind: "web", url: "https://example.com/b", title: "B", fetchedAt: "t" });
    expect([s1.source.id, s2.source.id, s3.source.id]).toEqual(["S1", "S1", "S2"]);
    expect([s1.added, s2.added, s3.added]).toEqual([true, false, true]);
    expect(s2.source.title).toBe("A");
  });

  it("treats pages of one local file as distinct sources", () => {
    const r = new EvidenceRegistry();
    const p1 = r.addSource({ kind: "local", path: "a.pdf", anchor: "page=1", title: "a", fetchedAt: "t" });
    const p2 = r.addSource({ kind: "local", path: "a.pdf", anchor: "page=2", title: "a", fetchedAt: "t" });
    const p1b = r.addSource({ kind: "local", path: "a.pdf", anchor: "page=1", title: "a", fetchedAt: "t" });
    expect([p1.source.id, p2.source.id, p1b.source.id]).toEqual(["S1", "S2", "S1"]);
  });

  it("deduplicates evidence by source and whitespace-normalised text", () => {
    const r = new EvidenceRegistry();
    const s = r.addSource({ kind: "web", url: "https://x.example", title: "x", fetchedAt: "t" }).source;
    const e1 = r.addEvidence({ sourceId: s.id, text: "  The  quick\nfox ", retrievedBy: by });
    const e2 = r.addEvidence({ sourceId: s.id, text: "The quick fox", retrievedBy: by });
    const e3 = r.addEvidence({ sourceId: s.id, text: "Another", retrievedBy: by });
    expect([e1.evidence.id, e2.evidence.id, e3.evidence.id]).toEqual(["E1", "E1", "E2"]);
    expect(r.evidenceOf(s.id).map((e) => e.id)).toEqual(["E1", "E2"]);
  });

  it("rejects evidence of an unknown source and empty text", () => {
    const r = new EvidenceRegistry();
    expect(() => r.addEvidence({ sourceId: "S9", text: "x", retrievedBy: by })).toThrow(DossierError);
    const s = r.addSource({ kind: "web", url: "https://x.example", title: "x", fetchedAt: "t" }).source;
    expect(() => r.addEvidence({ sourceId: s.id, text: "   ", retrievedBy: by })).toThrow(/empty/);
    expect(() => r.addSource({ kind: "web", title: "no locator", fetchedAt: "t" })).toThrow(/url or a path/);
  });

  it("restores from a snapshot and continues numbering after the highest id", () => {
    const r = new EvidenceRegistry();
    const s = r.addSource({ kind: "web", url: "https://x.example", title: "x", fetchedAt: "t" }).source;
    r.addEvidence({ sourceId: s.id, text: "one", retrievedBy: by });
    r.addEvidence({ sourceId: s.id, text: "two", retrievedBy: by });
    const restored = EvidenceRegistry.fromSnapshot(JSON.parse(JSON.stringify(r.snapshot())));
    expect(restored.snapshot()).toEqual(r.snapshot());
    expect(restored.addEvidence({ sourceId: "S1", text: "one", retrievedBy: by }).evidence.id).toBe("E1");
    expect(restored.addEvidence({ sourceId: "S1", text: "three", retrievedBy: by }).evidence.id).toBe("E3");
    expect(
      restored.addSource({ kind: "web", url: "https://y.example", title: "y", fetchedAt: "t" }).source.id,
    ).toBe("S2");
  });

  it("gives what an earlier attempt found the id it had, whatever the order it is found in again", () => {
    const web = (n: number) => ({
      kind: "web" as const,
      url: `https://x.example/${n}`,
      title: `${n}`,
      fetchedAt: "t",
    });
    const first = new EvidenceRegistry();
    const a = first.addSource(web(1)).source;
    const b = first.addSource(web(2)).source;
    first.addEvidence({ sourceId: a.id, text: "alpha", retrievedBy: by });
    first.addEvidence({ sourceId: b.id, text: "beta", retrievedBy: by });
    // The resumed attempt finds the second page first, then something new.
    const again = new EvidenceRegistry(undefined, JSON.parse(JSON.stringify(first.snapshot())));
    const b2 = again.addSource(web(2));
    expect(b2).toMatchObject({ added: true, source: { id: "S2" } });
    const beta = again.addEvidence({
      sourceId: "S2",
      text: " beta ",
      retrievedBy: { tool: "read_page", callId: "c9" },
    });
    expect(beta).toMatchObject({ added: true, evidence: { id: "E2", retrievedBy: { callId: "c9" } } });
    const c = again.addSource(web(3)).source;
    expect(c.id).toBe("S3");
    expect(again.addEvidence({ sourceId: c.id, text: "gamma", retrievedBy: by }).evidence.id).toBe("E3");
    expect(again.addSource(web(1)).source.id).toBe("S1");
    expect(again.addEvidence({ sourceId: "S1", text: "alpha", retrievedBy: by }).evidence.id).toBe("E1");
    // Listed in id order, as a fresh run lists them.
    expect(again.sources().map((s) => s.id)).toEqual(["S1", "S2", "S3"]);
    expect(again.evidence().map((e) => e.id)).toEqual(["E1", "E2", "E3"]);
  });
});
