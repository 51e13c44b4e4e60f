import { describe, expect, it } from "vitest";
import { formatIndexSummary } from "./index-summary.ts";
import type { IndexSummary } from "./types.ts";

const summary = (over: Partial<IndexSummary>): IndexSummary => ({
  corpus: "default",
  root: "/r",
  analyzer: "english",
  indexed: 0,
  unchanged: 0,
  removed: 0,
  skipped: [],
  pagesWithoutText: [],
  chunks: 0,
  totalChunks: 0,
  totalDocuments: 0,
  bytes: 0,
  embedded: 0,
  seconds: 0,
  ...over,
});

describe("formatIndexSummary", () => {
  it("prints counts, skip reasons by frequency, and seconds", () => {
    expect(
      formatIndexSummary(
        summary({
          indexed: 12,
          chunks: 143,
          unchanged: 5,
          removed: 1,
          seconds: 0.84,
          skipped: [
            { path: "a", reason: "symlink-loop" },
            { path: "b", reason: "binary" },
            { path: "c", reason: "corrupt-pdf" },
            { path: "d", reason: "binary" },
          ],
        }),
      ),
    ).toBe(
      "indexed 12 files (4 skipped: 2 binary, 1 corrupt-pdf, 1 symlink-loop; 5 unchanged; 1 removed), 143 chunks, 0.8 s",
    );
  });

  it("uses singulars and leaves out empty notes", () => {
    expect(formatIndexSummary(summary({ indexed: 1, chunks: 1, seconds: 12.345 }))).toBe(
      "indexed 1 file, 1 chunk, 12.3 s",
    );
    expect(formatIndexSummary(summary({ indexed: 2, chunks: 3, embedded: 3 }))).toBe(
      "indexed 2 files (3 chunks embedded), 3 chunks, 0.0 s",
    );
  });

  it("names the PDF pages without extractable text", () => {
    expect(
      formatIndexSummary(
        summary({
          indexed: 2,
          chunks: 9,
          pagesWithoutText: [
            { path: "scan.pdf", pages: [11] },
            { path: "report.pdf", pages: [3, 4, 5, 9, 10, 12] },
          ],
        }),
      ),
    ).toBe(
      "indexed 2 files (scan.pdf page 11: no extractable text; report.pdf pages 3–5, 9, 10, 12: no extractable text), 9 chunks, 0.0 s",
    );
  });
});
