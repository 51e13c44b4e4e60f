import { describe, expect, it } from "vitest";
import { chunkDocument, overlapTail, splitParagraph } from "./chunker.ts";
import type { ExtractedDocument, Section } from "./types.ts";

const doc = (...sections: Section[]): ExtractedDocument => ({ title: "t", sections });
const section = (paragraphs: string[], extra: Partial<Section> = {}): Section => ({
  headingPath: ["H"],
  anchor: "h",
  paragraphs,
  ...extra,
});
const texts = (d: ExtractedDocument, maxChars: number, overlapChars: number) =>
  chunkDocument(d, { maxChars, overlapChars }).map((c) => c.text);

describe("chunkDocument", () => {
  it("packs the paragraphs of a short section into one chunk joined by blank lines", () => {
    expect(
      chunkDocument(doc(section(["Alpha one.", "Beta two."])), { maxChars: 100, overlapChars: 20 }),
    ).toEqual([{ text: "Alpha one.\n\nBeta two.", anchor: "h", headingPath: ["H"] }]);
  });

  it("starts the next chunk with the previous chunk's last sentence as overlap", () => {
    const paragraphs = ["First paragraph here.", "Second paragraph here.", "Third paragraph here."];
    expect(texts(doc(section(paragraphs)), 50, 25)).toEqual([
      "First paragraph here.\n\nSecond paragraph here.",
      "Second paragraph here.\n\nThird paragraph here.",
    ]);
  });

  it("splits a long paragraph at sentences, keeping the source text exactly", () => {
    const paragraph = "One two three. Four five six. Seven eight nine. Ten eleven twelve.";
    expect(texts(doc(section([paragraph])), 40, 16)).toEqual([
      "One two three. Four five six.",
      "Four five six. Seven eight nine.",
      "eight nine. Ten eleven twelve.",
    ]);
  });

  it("hard-splits text without spaces or sentence ends (Chinese)", () => {
    expect(texts(doc(section(["机器学习是人工智能的一个分支它使计算机能够从数据中学习"])), 12, 4)).toEqual([
      "机器学习是人工智",
      "是人工智能的一个分支它使",
      "分支它使计算机能够从数据",
      "够从数据中学习",
    ]);
  });

  it("never crosses a section or page boundary and keeps pages", () => {
    const chunks = chunkDocument(
      doc(
        { headingPath: [], anchor: "page=1", page: 1, paragraphs: ["Page one."] },
        { headingPath: [], anchor: "page=2", page: 2, paragraphs: ["Page two."] },
      ),
      { maxChars: 1000, overlapChars: 100 },
    );
    expect(chunks).toEqual([
      { text: "Page one.", anchor: "page=1", headingPath: [], page: 1 },
      { text: "Page two.", anchor: "page=2", headingPath: [], page: 2 },
    ]);
  });

  it("makes no overlap when overlapChars is 0 and stays within maxChars", () => {
    const words = Array.from({ length: 400 }, (_, i) => `w${i}`).join(" ");
    const chunks = texts(doc(section([words])), 120, 0);
    expect(chunks.join(" ")).toBe(words);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(120);
  });
});

describe("splitParagraph and overlapTail", () => {
  it("splits into pieces whose concatenation is the paragraph", () => {
    const paragraph = "One two three. Four five six. Seven eight nine.";
    const pieces = splitParagraph(paragraph, 20);
    expect(pieces).toEqual(["One two three. ", "Four five six. ", "Seven eight nine."]);
    expect(pieces.join("")).toBe(paragraph);
  });

  it("starts the overlap at a sentence, else at a word", () => {
    expect(overlapTail("Short one. Another sentence here.", 25)).toBe("Another sentence here.");
    expect(overlapTail("no sentence boundary in this long text", 12)).toBe("long text");
    expect(overlapTail("anything", 0)).toBe("");
  });
});
