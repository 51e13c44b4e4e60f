import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CorpusIndex } from "./corpus-index.ts";
import { checkCorpusName, corpusPath } from "./corpus-paths.ts";
import { CORPUS_SCHEMA_VERSION } from "./corpus-schema.ts";
import type { DocumentInput } from "./types.ts";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "dossier-index-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const doc = (path: string, chunks: DocumentInput["chunks"]): DocumentInput => ({
  path,
  kind: "markdown",
  title: `Title of ${path}`,
  contentHash: `hash-${path}`,
  size: 10,
  mtimeMs: 5,
  chunks,
});

describe("CorpusIndex", () => {
  it("creates its own file with its own schema version", () => {
    const path = join(dir, "corpus", "x.db");
    CorpusIndex.open({ path }).close();
    const db = new DatabaseSync(path);
    expect((db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(
      CORPUS_SCHEMA_VERSION,
    );
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    ).map((r) => r.name);
    expect(tables).toEqual(
      expect.arrayContaining(["documents", "chunks", "terms", "postings", "chunks_fts", "meta"]),
    );
    db.close();
  });

  it("refuses a newer schema and a missing file when asked not to create", () => {
    const path = join(dir, "newer.db");
    const db = new DatabaseSync(path);
    db.exec(`PRAGMA user_version = ${CORPUS_SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => CorpusIndex.open({ path })).toThrow(expect.objectContaining({ code: "STORE_ERROR" }));
    expect(() => CorpusIndex.open({ path: join(dir, "none.db"), create: false })).toThrow(
      expect.objectContaining({ code: "NOT_FOUND" }),
    );
  });

  it("stores chunks with anchors, heading paths and pages, and replaces a document by path", () => {
    const index = CorpusIndex.open({ path: join(dir, "c.db") });
    index.write([
      doc("a.md", [
        { text: "alpha text", anchor: "alpha", headingPath: ["A", "Alpha"] },
        { text: "!!!", anchor: "empty", headingPath: [] },
        { text: "page text", anchor: "page=2", headingPath: [], page: 2 },
      ]),
    ]);
    const ids = index.chunkIdsOf("a.md");
    expect(ids).toHaveLength(2);
    expect(index.chunks([ids[1]!, ids[0]!, 999])).toEqual([
      {
        id: ids[1],
        path: "a.md",
        title: "Title of a.md",
        anchor: "page=2",
        headingPath: [],
        page: 2,
        text: "page text",
      },
      {
        id: ids[0],
        path: "a.md",
        title: "Title of a.md",
        anchor: "alpha",
        headingPath: ["A", "Alpha"],
        text: "alpha text",
      },
    ]);
    // english analyzer: "A Alpha alpha text" = 3 terms ("a" is a stopword), "page text" = 2
    expect(index.stats()).toEqual({ documents: 1, chunks: 2, totalLength: 5 });
    expect(index.documents().get("a.md")).toMatchObject({ contentHash: "hash-a.md", size: 10, mtimeMs: 5 });

    expect(index.write([doc("a.md", [{ text: "new text", anchor: "", headingPath: [] }])])).toBe(1);
    expect(index.chunkIdsOf("a.md")).toEqual([ids[1]! + 1]);
    expect(index.stats()).toEqual({ documents: 1, chunks: 1, totalLength: 2 });
    expect(index.searchBm25("alpha", { k1: 0.9, b: 0.4, limit: 5 })).toEqual([]);
    expect(index.remove(["a.md", "unknown.md"])).toBe(1);
    expect(index.stats()).toEqual({ documents: 0, chunks: 0, totalLength: 0 });
    index.close();
  });

  it("keeps meta values", () => {
    const index = CorpusIndex.open({ path: ":memory:" });
    expect(index.getMeta("root")).toBeUndefined();
    index.setMeta("root", "/a");
    index.setMeta("root", "/b");
    expect(index.getMeta("root")).toBe("/b");
    index.close();
  });
});

describe("corpus names", () => {
  it("maps a name to <home>/corpus/<name>.db", () => {
    expect(corpusPath("/home/x/.dossier")).toBe("/home/x/.dossier/corpus/default.db");
    expect(corpusPath("/h", "my-notes_2.v1")).toBe("/h/corpus/my-notes_2.v1.db");
  });

  it("refuses names that could leave the corpus folder", () => {
    for (const bad of ["../x", "a/b", ".hidden", "", "a b", "x".repeat(65)]) {
      expect(() => checkCorpusName(bad)).toThrow(expect.objectContaining({ code: "INPUT_INVALID" }));
    }
  });

  it("records its analyzer, english for a new corpus, and keeps it when reopened", () => {
    const path = join(dir, "an.db");
    const index = CorpusIndex.open({ path });
    expect(index.analyzer).toBe("english");
    index.write([doc("a.md", [{ text: "The running cats", anchor: "", headingPath: [] }])]);
    expect(index.getMeta("analyzer")).toBe("english");
    expect(index.searchBm25("cat runs", { k1: 0.9, b: 0.4, limit: 5 })).toHaveLength(1);
    expect(index.useAnalyzer("english")).toBe(false);
    expect(index.stats().documents).toBe(1);
    index.close();
    const again = CorpusIndex.open({ path });
    expect(again.analyzer).toBe("english");
    expect(again.searchBm25("RUNNING", { k1: 0.9, b: 0.4, limit: 5 })).toHaveLength(1);
    again.close();
  });

  it("drops every document when its analyzer changes, and then analyses with the new one", () => {
    const index = CorpusIndex.open({ path: join(dir, "switch.db") });
    index.write([doc("a.md", [{ text: "The running cats", anchor: "", headingPath: [] }])]);
    expect(index.useAnalyzer("standard")).toBe(true);
    expect(index.stats()).toEqual({ documents: 0, chunks: 0, totalLength: 0 });
    expect(index.getMeta("analyzer")).toBe("standard");
    index.write([doc("a.md", [{ text: "The running cats", anchor: "", headingPath: [] }])]);
    expect(index.stats().totalLength).toBe(3);
    expect(index.searchBm25("cat runs", { k1: 0.9, b: 0.4, limit: 5 })).toEqual([]);
    expect(index.searchBm25("the cats", { k1: 0.9, b: 0.4, limit: 5 })).toHaveLength(1);
    expect(() => index.useAnalyzer("klingon" as "english")).toThrow(
      expect.objectContaining({ code: "INPUT_INVALID" }),
    );
    index.close();
  });

  it("reads a corpus indexed before analyzers were recorded with the standard analyzer", () => {
    const path = join(dir, "legacy.db");
    const index = CorpusIndex.open({ path });
    index.useAnalyzer("standard");
    index.write([doc("a.md", [{ text: "The running cats", anchor: "", headingPath: [] }])]);
    index.close();
    const db = new DatabaseSync(path);
    db.exec("DELETE FROM meta WHERE key = 'analyzer'");
    db.close();
    const legacy = CorpusIndex.open({ path });
    expect(legacy.analyzer).toBe("standard");
    expect(legacy.searchBm25("the cats", { k1: 0.9, b: 0.4, limit: 5 })).toHaveLength(1);
    legacy.close();
  });
});
