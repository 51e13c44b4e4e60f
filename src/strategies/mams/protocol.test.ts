/**
 * Unit tests of the mams protocol: chunking on paragraph boundaries within the window, page
 * passages, and the report form (the memory's rewrite is memory.test.ts).
 */

import { describe, expect, it } from "vitest";
import { normalizeReport } from "../../kit/report-form.ts";
import { estimateTokens } from "../../llm/token-estimate.ts";
import { mamsOptionsSchema, mamsStrategy } from "./definition.ts";
import { pagePassages } from "./page-text.ts";
import { chunkObservation, onlyAppended, planAsList } from "./protocol.ts";

const para = (n: number, len: number) => `P${n} ${"x".repeat(len - String(n).length - 2)}`;

describe("chunkObservation", () => {
  it("packs whole blocks, cuts a long block between paragraphs and repeats its header", () => {
    const blocks = [
      { header: "[E1] A", text: para(1, 300) },
      { header: "[E2] B", text: [para(2, 400), para(3, 400), para(4, 400)].join("\n\n") },
      { header: "[E3] C", text: para(5, 100) },
    ];
    const chunks = chunkObservation(blocks, 1000);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(1000);
    // No paragraph is cut: each appears whole in exactly one chunk.
    for (const n of [1, 2, 3, 4, 5]) expect(chunks.filter((c) => c.includes(`P${n} `))).toHaveLength(1);
    expect(chunks.join("\n")).toContain("[E2] B (continued)");
    for (const c of chunks) expect(c).toMatch(/^\[E\d\]/);
  });

  it("cuts a paragraph longer than the window between sentences", () => {
    const sentence = `${"word ".repeat(38)}end.`;
    const chunks = chunkObservation([{ header: "[E1] A", text: Array(12).fill(sentence).join(" ") }], 1000);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(1000);
      expect(c.trimEnd()).toMatch(/end\.$/);
    }
  });
});

describe("chunkObservation in tokens", () => {
  it("measures the window in estimated tokens: chunks hold about three characters per token and never pass the window", () => {
    const paragraphs = Array.from(
      { length: 60 },
      (_, i) => `Paragraph ${i}. ${"Some words here. ".repeat(20)}`,
    );
    const blocks = [
      { header: "[E1] Page — https://x.example/p (from read_page)", text: paragraphs.join("\n\n") },
    ];
    const chunks = chunkObservation(blocks, 1000, estimateTokens);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(estimateTokens(c)).toBeLessThanOrEqual(1000);
    for (const c of chunks.slice(0, -1)) expect(c.length).toBeGreaterThan(2500);
    // Semantic boundaries: no paragraph is split.
    for (let i = 0; i < 60; i++) expect(chunks.filter((c) => c.includes(`Paragraph ${i}. `))).toHaveLength(1);
  });
});

describe("page passages", () => {
  it("packs a page's paragraphs into passages of at most 1,500 characters, in order, nothing lost", () => {
    const paragraphs = Array.from({ length: 30 }, (_, i) => `P${i} ${"w ".repeat(100 + i * 10)}end.`);
    const text = paragraphs.join("\n\n");
    const passages = pagePassages(text);
    for (const p of passages) expect(p.length).toBeLessThanOrEqual(1500);
    expect(passages.join("\n\n")).toBe(text);
  });
});

describe("report form", () => {
  it("takes the title line, drops a written reference list and starts headings at level 2", () => {
    const { title, body } = normalizeReport(
      "# Stations\n\n# Openings\n\nText [E1].\n\n## Detail\n\nMore [E2].\n\n# References\n\n1. A page",
      "question",
    );
    expect(title).toBe("Stations");
    expect(body).toBe("## Openings\n\nText [E1].\n\n### Detail\n\nMore [E2].");
  });

  it("tells an update that only appends", () => {
    expect(onlyAppended("## A\n\nx", "## A\n\nx\n\ny")).toBe(true);
    expect(onlyAppended("## A\n\nx", "## A\n\nz\n\ny")).toBe(false);
    expect(onlyAppended("", "## A")).toBe(false);
  });
});

describe("planAsList", () => {
  it("keeps a Markdown list and makes other lines items", () => {
    expect(planAsList("- [x] a\n  detail\n\n1. b")).toBe("- [x] a\n  detail\n1. b");
    expect(planAsList("Find the figures.\nThen compare them.")).toBe(
      "- Find the figures.\n- Then compare them.",
    );
  });
});

describe("the mams definition", () => {
  it("defaults to the seed's caps and estimates one search call per turn plus the final plan", () => {
    const options = mamsOptionsSchema.parse({});
    expect(options).toEqual({
      maxTurns: 10,
      maxCallsPerTurn: 5,
      chunkTokens: 24_000,
      memoryTokens: 16_384,
      topK: 5,
    });
    expect(() => mamsOptionsSchema.parse({ maxCallsPerTurn: 11 })).toThrow();
    expect(() => mamsOptionsSchema.parse({ turns: 3 })).toThrow();
    const estimate = mamsStrategy.estimate({ options, webReading: false });
    const count = (role: string) => estimate.llm.filter((c) => c.role === role).map((c) => c.count);
    expect(count("searcher")).toEqual([[2, 11]]);
    expect(count("state")).toEqual(count("writer"));
    expect(count("reader")).toEqual([]);
    expect(estimate.tools).toEqual([1, 50]);
  });

  it("states the paper's sampling for its three agents (App. D), the options' temperature / topP over it", () => {
    const paper = { temperature: 1, topP: 1, maxOutputTokens: 16_384 };
    // The search, state and report agents are one policy at 1.0 / 1.0 with 16,384-token replies;
    // the page reader is not the paper's (it keeps its own), and mams has no rubric judge.
    expect(mamsStrategy.sampling!(mamsOptionsSchema.parse({}))).toEqual({
      searcher: paper,
      state: paper,
      writer: paper,
    });
    expect(mamsStrategy.sampling!(mamsOptionsSchema.parse({ temperature: 0.6, topP: 0.9 }))).toEqual({
      searcher: { ...paper, temperature: 0.6, topP: 0.9 },
      state: { ...paper, temperature: 0.6, topP: 0.9 },
      writer: { ...paper, temperature: 0.6, topP: 0.9 },
    });
    expect(mamsStrategy.roles.filter((r) => r !== "reader")).toEqual(["searcher", "state", "writer"]);
  });
});
