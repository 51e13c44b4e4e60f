import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadBeirQueries, loadQrels, readBeirCorpus } from "./beir.ts";

let dir: string;
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "dossier-beir-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("BEIR loaders", () => {
  it("reads corpus.jsonl, with numeric ids and missing titles", async () => {
    const path = file(
      "corpus.jsonl",
      '{"_id": "d1", "title": "T", "text": "body", "metadata": {}}\n\n{"_id": 7, "text": "seven"}\r\n',
    );
    const docs = [];
    for await (const doc of readBeirCorpus(path)) docs.push(doc);
    expect(docs).toEqual([
      { id: "d1", title: "T", text: "body" },
      { id: "7", title: "", text: "seven" },
    ]);
  });

  it("reads queries.jsonl", async () => {
    const path = file(
      "queries.jsonl",
      '{"_id": "q1", "text": "what?"}\n{"_id": 2, "text": "why", "metadata": {}}\n',
    );
    expect(await loadBeirQueries(path)).toEqual(
      new Map([
        ["q1", "what?"],
        ["2", "why"],
      ]),
    );
  });

  it("reads qrels TSV with a header, and TREC qrels", async () => {
    const tsv = file("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\nq2\td1\t0\n");
    expect(await loadQrels(tsv)).toEqual(
      new Map([
        [
          "q1",
          new Map([
            ["d1", 1],
            ["d2", 2],
          ]),
        ],
        ["q2", new Map([["d1", 0]])],
      ]),
    );
    const trec = file("qrels.trec", "q1 0 d1 1\nq1 0 d3 2\n");
    expect(await loadQrels(trec)).toEqual(
      new Map([
        [
          "q1",
          new Map([
            ["d1", 1],
            ["d3", 2],
          ]),
        ],
      ]),
    );
  });

  it("names the file and line of a malformed entry", async () => {
    const bad = file("bad.jsonl", '{"_id": "d1", "text": "ok"}\n{"_id": "d2", "text": \n');
    const read = async () => {
      for await (const _ of readBeirCorpus(bad)) {
        // drain
      }
    };
    await expect(read()).rejects.toMatchObject({
      code: "INPUT_INVALID",
      message: `${bad} line 2: not valid JSON`,
    });
    const noText = file("q.jsonl", '{"_id": "q1"}\n');
    await expect(loadBeirQueries(noText)).rejects.toMatchObject({
      code: "INPUT_INVALID",
      message: expect.stringContaining("line 1: text:"),
    });
    const qrels = file("q.tsv", "query-id\tcorpus-id\tscore\nq1\td1\n");
    await expect(loadQrels(qrels)).rejects.toMatchObject({
      code: "INPUT_INVALID",
      message: expect.stringContaining("line 2"),
    });
  });

  it("reports a missing file", async () => {
    await expect(loadQrels(join(dir, "none.tsv"))).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
