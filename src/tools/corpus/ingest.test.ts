import { appendFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { instantClock } from "../../../test/scripted/clocks.ts";
import { GARBLED_GLYPHS, makeFixturePdf } from "../fetch/pdf-test-fixtures.ts";
import { CorpusIndex } from "./corpus-index.ts";
import { formatIndexSummary } from "./index-summary.ts";
import { indexDirectory } from "./ingest.ts";
import { localSearch } from "./local-search.ts";
import { INDEXED_FILES, writeCorpusFixture } from "./test-fixtures.ts";
import type { IndexSummary } from "./types.ts";

let base: string;
let root: string;
let index: CorpusIndex;

const MAX = 10_000;
const run = (
  extra: { chunking?: { maxChars: number; overlapChars: number }; analyzer?: "english" | "standard" } = {},
) => indexDirectory({ root, index, maxFileBytes: MAX, ...extra });
const skips = (summary: IndexSummary) =>
  summary.skipped.map((s) => [s.path, s.reason]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
const search = (query: string, topK = 5) => localSearch({ index, query, topK });

beforeEach(async () => {
  ({ base, root } = await writeCorpusFixture());
  index = CorpusIndex.open({ path: join(base, "home", "corpus", "default.db") });
});

afterEach(() => {
  index.close();
  rmSync(base, { recursive: true, force: true });
});

describe("indexDirectory on the fixture folder", () => {
  it("indexes the readable files and skips the rest with a reason each", async () => {
    const summary = await run();
    expect(summary.indexed).toBe(INDEXED_FILES.length);
    expect([...index.documents().keys()].sort()).toEqual(INDEXED_FILES);
    expect(skips(summary)).toEqual([
      ["a/loop", "symlink-loop"],
      ["big.txt", "too-large"],
      ["blob.txt", "binary"],
      ["broken.pdf", "corrupt-pdf"],
      ["escape.md", "outside-root"],
      ["image.png", "unsupported-type"],
    ]);
    expect(summary.unchanged).toBe(0);
    expect(summary.removed).toBe(0);
    // guide: 6 sections with text, notes: 1, page: 2, paper: 3 pages, zh: 2 sections
    expect(summary.chunks).toBe(14);
    expect(summary.totalChunks).toBe(14);
    expect(summary.totalDocuments).toBe(5);
  });

  it("prints one summary line with the skip reasons", async () => {
    const clock = instantClock();
    const summary = await indexDirectory({ root, index, maxFileBytes: MAX, clock });
    expect(formatIndexSummary(summary)).toBe(
      "indexed 5 files (6 skipped: 1 binary, 1 corrupt-pdf, 1 outside-root, 1 symlink-loop, 1 too-large, 1 unsupported-type), 14 chunks, 0.0 s",
    );
  });

  it("never indexes anything outside the root", async () => {
    await run();
    expect(await search("exfiltrated credentials")).toEqual([]);
    expect([...index.documents().keys()].some((p) => p.includes("secret"))).toBe(false);
  });

  it("keeps PDF page numbers as anchors", async () => {
    await run();
    const [first] = await search("photosynthesis light");
    expect(first).toMatchObject({
      path: "paper.pdf",
      anchor: "page=1",
      page: 1,
      title: "Cell Biology Notes",
    });
    const [third] = await search("ribosomes proteins");
    expect(third).toMatchObject({ path: "paper.pdf", anchor: "page=3", page: 3 });
    expect(third!.text).toBe("Ribosomes assemble proteins from amino acids.");
  });

  it("keeps Markdown heading paths and GitHub slugs", async () => {
    await run();
    const [linux] = await search("system package manager penguins");
    expect(linux).toMatchObject({
      path: "guide.md",
      anchor: "on-linux",
      headingPath: "User Guide > Installation > On Linux",
      title: "User Guide",
      text: "Use the system package manager. Penguins welcome.",
    });
    const [second] = await search("second section same title");
    expect(second).toMatchObject({ anchor: "usage-1", headingPath: "User Guide > Usage" });
    const [code] = await search("comment heading");
    expect(code).toMatchObject({ anchor: "usage", text: expect.stringContaining("# this is a comment") });
  });

  it("keeps HTML headings and drops navigation and scripts", async () => {
    await run();
    const [keeper] = await search("keeper lamp");
    expect(keeper).toMatchObject({
      path: "page.html",
      anchor: "lighthouse-keeper",
      headingPath: "Harbour > Lighthouse Keeper",
      title: "Harbour Report",
      text: "The keeper trims the lamp every evening.",
    });
    expect(await search("track")).toEqual([]);
    expect(await search("sitemap")).toEqual([]);
  });

  it("finds the Chinese document with a Chinese query", async () => {
    await run();
    const hits = await search("深度学习的神经网络");
    expect(hits[0]).toMatchObject({
      path: "zh.md",
      anchor: "深度学习",
      headingPath: "机器学习简介 > 深度学习",
    });
    expect(hits[0]!.text).toBe("深度学习使用多层神经网络来学习复杂的表示。");
    const [intro] = await search("人工智能");
    expect(intro).toMatchObject({ path: "zh.md", anchor: "机器学习简介" });
  });

  it("re-chunks only a modified file and leaves the others' chunks untouched", async () => {
    await run();
    const before = new Map(INDEXED_FILES.map((p) => [p, index.chunkIdsOf(p)]));
    const maxBefore = Math.max(...[...before.values()].flat());
    appendFileSync(join(root, "notes.txt"), "\nA third paragraph about anchors and chains.\n");
    const summary = await run();
    expect(summary).toMatchObject({ indexed: 1, unchanged: 4, removed: 0, chunks: 1, totalChunks: 14 });
    for (const path of INDEXED_FILES.filter((p) => p !== "notes.txt")) {
      expect(index.chunkIdsOf(path)).toEqual(before.get(path));
    }
    const notes = index.chunkIdsOf("notes.txt");
    expect(notes).toHaveLength(1);
    expect(notes[0]!).toBeGreaterThan(maxBefore);
    const [hit] = await search("anchors chains");
    expect(hit).toMatchObject({ path: "notes.txt", chunkId: notes[0] });
  });

  it("skips a file whose modification time changed but whose content did not", async () => {
    await run();
    const before = index.chunkIdsOf("guide.md");
    utimesSync(join(root, "guide.md"), new Date(2030, 0, 1), new Date(2030, 0, 1));
    const summary = await run();
    expect(summary).toMatchObject({ indexed: 0, unchanged: 5, chunks: 0 });
    expect(index.chunkIdsOf("guide.md")).toEqual(before);
  });

  it("removes the chunks of a deleted file", async () => {
    await run();
    expect((await search("深度学习"))[0]?.path).toBe("zh.md");
    rmSync(join(root, "zh.md"));
    const summary = await run();
    expect(summary).toMatchObject({
      indexed: 0,
      unchanged: 4,
      removed: 1,
      totalChunks: 12,
      totalDocuments: 4,
    });
    expect(index.chunkIdsOf("zh.md")).toEqual([]);
    expect(await search("深度学习")).toEqual([]);
    expect(index.stats()).toEqual({ documents: 4, chunks: 12, totalLength: index.stats().totalLength });
  });

  it("removes a document whose file became unreadable, and reports the skip", async () => {
    await run();
    writeFileSync(join(root, "paper.pdf"), "%PDF-1.4\nnot really a pdf");
    const summary = await run();
    expect(summary.removed).toBe(1);
    expect(skips(summary)).toContainEqual(["paper.pdf", "corrupt-pdf"]);
    expect(await search("ribosomes")).toEqual([]);
  });

  it("rebuilds everything when the chunking settings change", async () => {
    await run();
    const summary = await run({ chunking: { maxChars: 40, overlapChars: 10 } });
    expect(summary.indexed).toBe(5);
    expect(summary.unchanged).toBe(0);
    expect(summary.totalChunks).toBeGreaterThan(14);
  });

  it("indexes a new corpus with the english analyzer and re-indexes when the analyzer changes", async () => {
    const first = await run();
    expect(index.analyzer).toBe("english");
    expect(first.analyzer).toBe("english");
    expect((await run()).unchanged).toBe(5);
    const switched = await run({ analyzer: "standard" });
    expect(switched).toMatchObject({ indexed: 5, unchanged: 0, analyzer: "standard" });
    expect(index.getMeta("analyzer")).toBe("standard");
    // Without an analyzer the corpus keeps the one it has.
    expect(await run()).toMatchObject({ unchanged: 5, analyzer: "standard" });
  });

  it("finds the same passage for a question wrapped in quotation marks", async () => {
    await run();
    const plain = await search("ribosomes proteins");
    expect(plain.length).toBeGreaterThan(0);
    expect(await search('"“ribosomes proteins”"')).toEqual(plain);
    expect(await search('"“ribosomes (proteins) NEAR -x*:')).toEqual(
      await search("ribosomes proteins near x"),
    );
  });

  it("keeps PDF pages without extractable text out of the index and names them in the summary", async () => {
    // Glyph ids of a font without a Unicode map: mostly control characters, a few letters.
    const garbled = [...GARBLED_GLYPHS, 0x51, 0x5a, 0x58, 0x20, 0x51, 0x5a, 0x58];
    writeFileSync(
      join(root, "garbled.pdf"),
      await makeFixturePdf([{ text: "Seagrass meadows store carbon." }, { glyphIds: garbled }], "Seagrass"),
    );
    const summary = await run();
    expect(summary.pagesWithoutText).toEqual([{ path: "garbled.pdf", pages: [2] }]);
    expect(formatIndexSummary(summary)).toContain("garbled.pdf page 2: no extractable text");
    expect((await search("seagrass carbon"))[0]).toMatchObject({ path: "garbled.pdf", page: 1 });
    expect(await search("qzx")).toEqual([]);
    expect(index.chunkIdsOf("garbled.pdf")).toHaveLength(1);
  });
});
