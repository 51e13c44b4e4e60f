import { describe, expect, it } from "vitest";
import { fixtureRun } from "../test-fixtures.ts";
import { citationCounts, citationReward, passagesByUrl, reportCitations } from "./citation-reward.ts";

describe("Eq. 10: the citation reward", () => {
  it("is +0.1, −0.1 or −1 around 0.7·n_ref (n_ref = 10 → 7)", () => {
    expect(citationReward({ generated: 7, reference: 10, valid: 7 })).toBe(0.1);
    expect(citationReward({ generated: 12, reference: 10, valid: 6 })).toBe(-0.1);
    expect(citationReward({ generated: 6, reference: 10, valid: 6 })).toBe(-1);
    expect(citationReward({ generated: 0, reference: 0, valid: 0 })).toBe(0.1); // 0 ≥ 0.7·0
  });
});

describe("citation counts", () => {
  const report = [
    "# Museum",
    "",
    "The museum opened in Turin in 1832 [1]. Its founder was an engineer [2]. Visitors rose sharply last year [3].",
    "",
    "## References",
    "",
    "1. History. <https://a.example/history> (accessed 2026-01-01)",
    "2. Founder. <https://b.example/founder> (accessed 2026-01-01)",
    "3. Visitors. <https://c.example/visitors> (accessed 2026-01-01)",
  ].join("\n");
  const reference =
    "# R\n\nA [1]. B [2]. C [3]. D [1, 2].\n\n## References\n\n1. <https://r.example/1>\n2. <https://r.example/2>\n3. <https://r.example/3>\n";
  const run = fixtureRun({
    sources: [
      {
        id: "S1",
        kind: "web",
        url: "https://a.example/history",
        title: "H",
        fetchedAt: "2026-01-01T00:00:00Z",
      },
      {
        id: "S2",
        kind: "web",
        url: "https://b.example/founder.",
        title: "F",
        fetchedAt: "2026-01-01T00:00:00Z",
      },
    ],
    evidence: [
      {
        id: "E1",
        sourceId: "S1",
        text: "The museum opened its doors in Turin in 1832 after a royal decree.",
        retrievedBy: { tool: "web_search", callId: "T1" },
      },
      {
        id: "E2",
        sourceId: "S2",
        text: "He studied law in Paris.",
        retrievedBy: { tool: "web_search", callId: "T1" },
      },
    ],
  });

  it("extracts (statement, number, URL) citations; a statement citing two sources counts twice", () => {
    expect(reportCitations(report).map((c) => [c.fact, c.number])).toEqual([
      ["The museum opened in Turin in 1832.", 1],
      ["Its founder was an engineer.", 2],
      ["Visitors rose sharply last year.", 3],
    ]);
    expect(reportCitations(reference)).toHaveLength(5);
    expect([...passagesByUrl(run).keys()]).toEqual([
      "https://a.example/history",
      "https://b.example/founder",
    ]);
  });

  it("counts n_valid with lexical relevance ≥ τ", async () => {
    const counts = await citationCounts(report, reference, run);
    // [1]: content words museum, opened, turin, 1832 — all in E1 → 4/4 = 1
    // [2]: founder, engineer — neither in E2 → 0/2 = 0
    // [3]: no passage from c.example → 0
    expect(counts.citations.map((c) => c.relevance)).toEqual([1, 0, 0]);
    expect([counts.generated, counts.reference, counts.valid]).toEqual([3, 5, 1]);
    const all = await citationCounts(report, reference, run, { relevance: () => 0.3, tau: 0.3 });
    expect(all.valid).toBe(3); // relevance equal to τ counts
  });
});

describe("the passages a citation is judged against", () => {
  const source = (id: string, url?: string) => ({
    id,
    kind: url ? ("web" as const) : ("local" as const),
    ...(url ? { url } : { path: `notes/${id}.md` }),
    title: id,
    fetchedAt: "2026-01-01T00:00:00Z",
  });
  const excerpt = (id: string, sourceId: string, text: string) => ({
    id,
    sourceId,
    text,
    retrievedBy: { tool: "web_search", callId: "T1" },
  });
  const report = (statement: string, url = "https://a.example/page") =>
    `# R\n\n${statement} [1].\n\n## References\n\n1. Page. <${url}>\n`;

  it("groups every excerpt by its source's URL, leaving out local documents and unknown sources", () => {
    const run = fixtureRun({
      sources: [source("S1", "https://a.example/page"), source("S2"), source("S3", "https://b.example/")],
      evidence: [
        excerpt("E1", "S1", "First excerpt."),
        excerpt("E2", "S2", "A local file."),
        excerpt("E3", "S9", "From nowhere."),
        excerpt("E4", "S1", "Second excerpt."),
      ],
    });
    expect(passagesByUrl(run)).toEqual(
      new Map([["https://a.example/page", ["First excerpt.", "Second excerpt."]]]),
    );
  });

  it("reads a statement against the excerpts as separate texts, and scores a citation without one 0", async () => {
    const run = fixtureRun({
      sources: [source("S1", "https://a.example/page")],
      evidence: [excerpt("E1", "S1", "It opened in Turin"), excerpt("E2", "S1", "Museum records survive.")],
    });
    const opened = await citationCounts(report("The museum opened in Turin"), report("A"), run);
    expect(opened.citations.map((c) => [c.relevance, c.valid])).toEqual([[1, true]]);
    // a statement without content words would overlap fully with anything: without a passage it is 0
    const bare = await citationCounts(report("It is so", "https://z.example/"), report("A"), run);
    expect(bare.citations.map((c) => [c.relevance, c.valid])).toEqual([[0, false]]);
  });

  it("hands a custom relevance the cited URL's excerpts, and none for a URL the run never read", async () => {
    const run = fixtureRun({
      sources: [source("S1", "https://a.example/page")],
      evidence: [excerpt("E1", "S1", "It opened in Turin")],
    });
    const seen: (readonly string[])[] = [];
    const relevance = (_: unknown, passages: readonly string[]) => {
      seen.push(passages);
      return 1;
    };
    await citationCounts(report("Read"), report("A"), run, { relevance });
    await citationCounts(report("Unread", "https://z.example/"), report("A"), run, { relevance });
    expect(seen).toEqual([["It opened in Turin"], []]);
  });
});
