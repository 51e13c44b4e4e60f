/**
 * The pure parts of a refresh: a body cut into sections joins back byte for byte (fences keep
 * their `## ` lines), a Markdown report's body is read without its References and claim line, a
 * rewritten section's numbers follow the report's numbering (a known source keeps its number, a
 * new one takes the next), and a citation that does not resolve is named.
 */

import { describe, expect, it } from "vitest";
import { EvidenceRegistry } from "../core/evidence-registry.ts";
import { markdownBody } from "./refresh-parent.ts";
import { citationProblems, Numbering, numberSection } from "./refresh-report.ts";
import { sectionContent, splitSections, withContent } from "./refresh-sections.ts";

const BODY = [
  "# Title",
  "",
  "Intro cites [1].",
  "",
  "## One",
  "",
  "First [1, 2].",
  "",
  "```md",
  "## not a section",
  "```",
  "",
  "## Two",
  "",
  "Second [3].",
  "",
].join("\n");

describe("refresh sections", () => {
  it("cut a body into the introduction and its ## sections, joining back byte for byte", () => {
    const sections = splitSections(BODY);
    expect(sections.map((s) => [s.index, s.title, s.numbers])).toEqual([
      [0, "Introduction", [1]],
      [1, "One", [1, 2]],
      [2, "Two", [3]],
    ]);
    expect(sections.map((s) => s.text).join("")).toBe(BODY);
    expect(sectionContent(sections[2]!)).toBe("Second [3].");
    expect(withContent(sections[1]!, "New [4].")).toBe("## One\n\nNew [4].\n\n");
  });

  it("read a Markdown report's body without its References and the claim check's line", () => {
    const md = `${BODY}\n## References\n\n1. A. <https://a.example/> (accessed 2026-01-01)\n\n---\n\nClaim check: 3 cited claims.\n`;
    expect(markdownBody(md)).toBe(BODY);
    expect(markdownBody(BODY)).toBe(BODY);
  });
});

describe("refresh numbering and citations", () => {
  const registry = new EvidenceRegistry();
  const a = registry.addSource({
    kind: "web",
    url: "https://a.example/",
    title: "A",
    fetchedAt: "2026-01-01",
  }).source;
  const b = registry.addSource({
    kind: "web",
    url: "https://b.example/",
    title: "B",
    fetchedAt: "2026-01-01",
  }).source;
  const ea = registry.addEvidence({
    sourceId: a.id,
    text: "Alpha.",
    retrievedBy: { tool: "t", callId: "c" },
  }).evidence;
  const eb = registry.addEvidence({
    sourceId: b.id,
    text: "Beta.",
    retrievedBy: { tool: "t", callId: "c" },
  }).evidence;

  it("keep a known source's number and give a new one the next", () => {
    const numbering = new Numbering(new Map([[a.id, 3]]));
    const out = numberSection(
      `Beta [${eb.id}]. Alpha [${ea.id}, ${eb.id}]. Made up [E99].`,
      new Set([ea.id, eb.id]),
      registry,
      numbering,
    );
    expect(out.text).toBe("Beta [4]. Alpha [3, 4]. Made up.");
    expect(out.evidenceByNumber).toEqual({ 3: [ea.id], 4: [eb.id] });
    expect(out.dropped).toBe(1);
    expect(numbering.sourceOf(4)).toBe(b.id);
  });

  it("name every citation that does not resolve", () => {
    const refs = [
      {
        number: 3,
        sourceId: a.id,
        kind: "web" as const,
        title: "A",
        locator: "https://a.example/",
        accessed: "2026-01-01",
      },
    ];
    expect(citationProblems("Alpha [3].", refs, { 3: [ea.id] }, registry)).toEqual([]);
    expect(citationProblems("Alpha [3]. Beta [4].", refs, { 3: [ea.id] }, registry)).toEqual([
      "[4] has no reference",
      "[4] has no evidence",
    ]);
    expect(citationProblems("Alpha [3].", refs, { 3: [eb.id] }, registry)).toEqual([
      `[3] cites ${eb.id} of another source`,
    ]);
    expect(citationProblems("Alpha [3].", refs, { 3: ["E404"] }, registry)).toEqual([
      "[3] cites E404, not held",
    ]);
  });
});
