import { describe, expect, it } from "vitest";
import { DossierError } from "./errors.ts";
import { EvidenceRegistry, sourceKey } from "./evidence-registry.ts";

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

describe("EvidenceRegistry keys and restores", () => {
  const page = (url: string, anchor?: string) => ({
    kind: "web" as const,
    url,
    title: url,
    fetchedAt: "t",
    ...(anchor === undefined ? {} : { anchor }),
  });

  it("keys a URL source by its normalised URL and its anchor", () => {
    expect(sourceKey(page("https://www.Example.com/a/?utm_source=x", "p2"))).toBe(
      sourceKey(page("http://example.com/a", "p2")),
    );
    expect(sourceKey(page("https://example.com/a", "p2"))).toBe("url://example.com/a#p2");
    expect(sourceKey(page("https://example.com/a"))).toBe("url://example.com/a#");
    expect(sourceKey({ kind: "local", path: "a.pdf", anchor: "page=3" })).toBe("local:a.pdf#page=3");
    expect(sourceKey({ kind: "academic", path: "a.pdf" })).toBe("academic:a.pdf#");
    expect(sourceKey({ kind: "local" })).toBe("local:#");
    const r = new EvidenceRegistry();
    const ids = [
      page("https://example.com/a", "p1"),
      page("https://example.com/a", "p2"),
      page("https://example.com/a"),
    ].map((p) => r.addSource(p).source.id);
    expect(ids).toEqual(["S1", "S2", "S3"]);
    expect(
      r.addSource({ kind: "local", path: "https://example.com/a", title: "x", fetchedAt: "t" }).source.id,
    ).toBe("S4");
    expect(
      r.addSource({ kind: "academic", path: "https://example.com/a", title: "x", fetchedAt: "t" }).added,
    ).toBe(true);
  });

  it("keeps evidence of different sources apart, and trims the stored text", () => {
    const r = new EvidenceRegistry();
    const a = r.addSource(page("https://a.example")).source.id;
    const b = r.addSource(page("https://b.example")).source.id;
    const e1 = r.addEvidence({ sourceId: a, text: "\tsame words\n", retrievedBy: by }).evidence;
    const e2 = r.addEvidence({ sourceId: b, text: "same words", retrievedBy: by });
    expect(e1).toMatchObject({ id: "E1", text: "same words" });
    expect(e2).toMatchObject({ added: true, evidence: { id: "E2" } });
    expect(r.getEvidence("E1")).toBe(e1);
    expect(r.getSource(a)?.url).toBe("https://a.example");
    expect(r.getSource("S9")).toBeUndefined();
    expect(r.evidenceOf(b).map((e) => e.id)).toEqual(["E2"]);
    try {
      r.addEvidence({ sourceId: "S7", text: "x", retrievedBy: by });
      expect.unreachable();
    } catch (error) {
      expect((error as DossierError).code).toBe("INPUT_INVALID");
      expect((error as DossierError).message).toBe("evidence names unknown source S7");
    }
    try {
      r.addSource({ kind: "web", title: "none", fetchedAt: "t" });
      expect.unreachable();
    } catch (error) {
      expect((error as DossierError).code).toBe("INPUT_INVALID");
      expect((error as DossierError).details).toEqual({
        input: { kind: "web", title: "none", fetchedAt: "t" },
      });
    }
    expect(r.addSource({ kind: "local", path: "only-path.md", title: "p", fetchedAt: "t" }).added).toBe(true);
  });

  it("tells passages apart that differ only in where their blanks are", () => {
    const r = new EvidenceRegistry();
    const s = r.addSource(page("https://a.example")).source.id;
    expect(r.addEvidence({ sourceId: s, text: "a bc", retrievedBy: by }).evidence.id).toBe("E1");
    expect(r.addEvidence({ sourceId: s, text: "ab c", retrievedBy: by }).evidence.id).toBe("E2");
    try {
      r.addEvidence({ sourceId: s, text: " \n ", retrievedBy: by });
      expect.unreachable();
    } catch (error) {
      expect((error as DossierError).code).toBe("INPUT_INVALID");
      expect((error as DossierError).message).toBe("evidence text is empty");
    }
  });

  it("compares a restored passage by its whitespace-normalised text", () => {
    const restored = EvidenceRegistry.fromSnapshot({
      sources: [{ id: "S1", kind: "web", url: "https://a.example", title: "a", fetchedAt: "t" }],
      evidence: [{ id: "E1", sourceId: "S1", text: " one\n two ", retrievedBy: by }],
    });
    expect(restored.addEvidence({ sourceId: "S1", text: "one two", retrievedBy: by })).toMatchObject({
      added: false,
      evidence: { id: "E1" },
    });
  });

  it("rebuilds both dedup indexes from a snapshot, so a page found again keeps its id", () => {
    const r = new EvidenceRegistry();
    const s = r.addSource(page("https://x.example/a", "p1")).source;
    r.addEvidence({ sourceId: s.id, text: "one", retrievedBy: by });
    const restored = EvidenceRegistry.fromSnapshot(JSON.parse(JSON.stringify(r.snapshot())));
    const again = restored.addSource(page("http://www.x.example/a", "p1"));
    expect(again).toMatchObject({ added: false, source: { id: "S1", title: "https://x.example/a" } });
    expect(restored.addEvidence({ sourceId: "S1", text: " one ", retrievedBy: by }).added).toBe(false);
    expect(restored.getSource("S1")).toEqual(s);
    expect(restored.getEvidence("E1")?.text).toBe("one");
  });

  it("continues numbering after the highest restored id of each kind, whatever their order", () => {
    const snapshot = {
      sources: [
        { id: "S12", kind: "web" as const, url: "https://x.example/12", title: "12", fetchedAt: "t" },
        { id: "S3", kind: "web" as const, url: "https://x.example/3", title: "3", fetchedAt: "t" },
      ],
      evidence: [
        { id: "E2", sourceId: "S3", text: "two", retrievedBy: by },
        { id: "E9", sourceId: "S12", text: "nine", retrievedBy: by },
      ],
    };
    const restored = EvidenceRegistry.fromSnapshot(snapshot);
    expect(restored.addSource(page("https://x.example/new")).source.id).toBe("S13");
    expect(restored.addEvidence({ sourceId: "S3", text: "ten", retrievedBy: by }).evidence.id).toBe("E10");
    expect(() => EvidenceRegistry.fromSnapshot({ sources: [{ id: "X1" }], evidence: [] } as never)).toThrow();
  });

  it("lists ids in numeric order after a resume with more than nine of them", () => {
    const earlier = new EvidenceRegistry();
    for (let n = 1; n <= 11; n++) earlier.addSource(page(`https://x.example/${n}`));
    const again = new EvidenceRegistry(undefined, earlier.snapshot());
    // Found again in reverse order: S11, S10, …, S1.
    for (let n = 11; n >= 1; n--) again.addSource(page(`https://x.example/${n}`));
    expect(again.sources().map((s) => s.id)).toEqual(earlier.sources().map((s) => s.id));
    expect(again.sources()[9]?.id).toBe("S10");
  });

  it("keeps the first earlier id of a key and of an id, and never hands out a reserved id", () => {
    const earlier = {
      sources: [
        { id: "S1", kind: "web" as const, url: "https://x.example/a", title: "a", fetchedAt: "t" },
        { id: "S2", kind: "web" as const, url: "https://x.example/a", title: "a twice", fetchedAt: "t" },
        { id: "S1", kind: "web" as const, url: "https://x.example/b", title: "b", fetchedAt: "t" },
      ],
      evidence: [],
    };
    const again = new EvidenceRegistry(undefined, earlier);
    // a keeps S1 (its first id); b's S1 is taken, so b is new and S2 (never reserved) is free.
    expect(again.addSource(page("https://x.example/b")).source.id).toBe("S2");
    expect(again.addSource(page("https://x.example/a")).source.id).toBe("S1");
    expect(again.addSource(page("https://x.example/c")).source.id).toBe("S3");
  });
});
