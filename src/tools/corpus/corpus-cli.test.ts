/**
 * `dossier index`, `dossier search --provider local` and `dossier eval retrieval` in-process
 * over the corpus fixture.
 */

import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type CliOutcome, recordingIo, runCliInProcess } from "../../../test/cli-io.ts";
import { startFakeOpenAI } from "../../../test/fake-openai/index.ts";
import { runLocalSearch } from "../../cli/commands/search-local.ts";
import { runCli } from "../../cli/program.ts";
import { writeCorpusFixture } from "./test-fixtures.ts";

let base: string;

beforeEach(async () => {
  ({ base } = await writeCorpusFixture());
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  rmSync(base, { recursive: true, force: true });
});

/** Runs `dossier <args>` in-process in `base` with a minimal environment plus `extra`. */
function dossier(args: string[], extra: Record<string, string> = {}): Promise<CliOutcome> {
  return runCliInProcess(args, { cwd: base, env: { HOME: base, ...extra } });
}

function fakeIo(extra: Record<string, string> = {}, isTty = false) {
  const io = recordingIo({ cwd: base, env: extra });
  io.isTty = isTty;
  return io;
}

const SKIPS = [
  ["a/loop", "symlink-loop"],
  ["big.txt", "too-large"],
  ["blob.txt", "binary"],
  ["broken.pdf", "corrupt-pdf"],
  ["escape.md", "outside-root"],
  ["image.png", "unsupported-type"],
];

describe("dossier index", () => {
  it("--json prints one summary object with the skipped files and reasons", async () => {
    const result = await dossier(["index", "docs", "--max-file-mb", "0.01", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      corpus: string;
      root: string;
      indexed: number;
      chunks: number;
      skipped: { path: string; reason: string }[];
    };
    expect(summary).toMatchObject({ corpus: "default", root: join(base, "docs"), indexed: 5, chunks: 14 });
    expect(summary.skipped.map((s) => [s.path, s.reason]).sort()).toEqual(SKIPS);
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
  });

  it("prints a summary line and the skips, then skips unchanged files on a second run", async () => {
    const first = await dossier(["index", "docs", "--name", "notes", "--max-file-mb", "0.01"]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /^indexed 5 files \(6 skipped: 1 binary, 1 corrupt-pdf, 1 outside-root, 1 symlink-loop, 1 too-large, 1 unsupported-type\), 14 chunks, \d+\.\d s\n$/,
    );
    expect(first.stderr).toContain("skipped a/loop: symlink-loop (a/loop -> ..)\n");
    expect(first.stderr).toContain("skipped broken.pdf: corrupt-pdf (");
    const second = await dossier(["index", "docs", "--name", "notes", "--max-file-mb", "0.01"]);
    expect(second.stdout).toMatch(/^indexed 0 files \(6 skipped: .*; 5 unchanged\), 0 chunks, \d+\.\d s\n$/);
  });

  it("refuses a bad corpus name and a bad size limit", async () => {
    expect((await dossier(["index", "docs", "--name", "../x"])).stderr).toMatch(
      /^dossier: error \[INPUT_INVALID\]: corpus name/,
    );
    const missing = await dossier(["index", "nowhere"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("dossier: error [INPUT_INVALID]: nowhere is not a folder\n");
    expect(existsSync(join(base, ".dossier"))).toBe(false);
    const bad = await dossier(["index", "docs", "--max-file-mb", "lots"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--max-file-mb must be a positive number");
  });

  it("--analyzer chooses how text becomes terms; a change re-indexes every file, no flag keeps it", async () => {
    const bad = await dossier(["index", "docs", "--analyzer", "klingon"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'dossier: error [INPUT_INVALID]: --analyzer must be one of english, standard, got "klingon"\n',
    );
    expect(existsSync(join(base, ".dossier"))).toBe(false);

    const run = async (...extra: string[]) => {
      const out = await dossier(["index", "docs", "--max-file-mb", "0.01", "--json", ...extra]);
      expect(out.code).toBe(0);
      return JSON.parse(out.stdout) as { indexed: number; unchanged: number };
    };
    const hits = async (query: string) =>
      (JSON.parse((await dossier(["search", "--provider", "local", query, "--json"])).stdout) as unknown[])
        .length;
    expect((await run("--analyzer", "standard")).indexed).toBe(5);
    expect(await run("--analyzer", "standard")).toMatchObject({ indexed: 0, unchanged: 5 });
    // No stemming: "ribosome" does not match the documents' "Ribosomes".
    expect(await hits("ribosome")).toBe(0);
    expect((await run("--analyzer", "english")).indexed).toBe(5);
    expect(await run()).toMatchObject({ indexed: 0, unchanged: 5 });
    // Porter stemming: both become "ribosom".
    expect(await hits("ribosome")).toBeGreaterThan(0);
  });

  it("--hybrid embeds the chunks through the embeddings endpoint", async () => {
    const fake = await startFakeOpenAI({ embeddingDimensions: 64 });
    try {
      const vars = { DOSSIER_EMBEDDING_URL: fake.url, DOSSIER_EMBEDDING_MODEL: "fake-embed" };
      const result = await dossier(["index", "docs", "--max-file-mb", "0.01", "--hybrid", "--json"], vars);
      expect(result.stderr).toBe("");
      expect(JSON.parse(result.stdout)).toMatchObject({ indexed: 5, chunks: 14, embedded: 14 });
      expect(fake.requests.map((r) => [r.path, (r.body as { input: string[] }).input.length])).toEqual([
        ["/v1/embeddings", 14],
      ]);

      const io = fakeIo(vars);
      await runLocalSearch(io, "keeper trims the lamp", { hybrid: true, json: true, topK: 2 });
      expect(fake.requests).toHaveLength(2);
      expect((fake.requests[1]!.body as { input: string[] }).input).toEqual(["keeper trims the lamp"]);
      const hits = JSON.parse(io.stdout) as { path: string; anchor: string; score: number }[];
      expect(hits[0]).toEqual({
        path: "page.html",
        anchor: "lighthouse-keeper",
        text: "The keeper trims the lamp every evening.",
        score: 2 / 61,
      });
    } finally {
      await fake.close();
    }
  });
});

describe("local-only indexing and search", () => {
  it("never open a connection or call fetch", async () => {
    const fetchSpy = vi.fn(async () => {
      throw new Error("network used");
    });
    vi.stubGlobal("fetch", fetchSpy);
    const connect = vi.spyOn(net.Socket.prototype, "connect");
    const io = fakeIo({ DOSSIER_EMBEDDING_URL: "http://127.0.0.1:9/v1", DOSSIER_EMBEDDING_MODEL: "m" });
    expect(await runCli(["index", "docs", "--json"], io)).toBe(0);
    expect(JSON.parse(io.stdout)).toMatchObject({ indexed: 6 });
    expect(await runCli(["search", "--provider", "local", "ribosomes", "--json"], io)).toBe(0);
    await runLocalSearch(io, "keeper", { json: true });
    expect(io.stderr).toBe("");
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(connect).not.toHaveBeenCalled();
  });

  it("draws a progress line on a terminal and clears it before the summary", async () => {
    const io = fakeIo({}, true);
    expect(await runCli(["index", "docs", "--max-file-mb", "0.01"], io)).toBe(0);
    expect(io.stderr.startsWith("\r\x1b[K[")).toBe(true);
    // 7 files to read: 5 indexed, blob.txt and broken.pdf refused after reading
    expect(io.stderr).toContain("[########################] 7/7 files\r\x1b[Kskipped ");
    expect(io.stdout).toMatch(/^indexed 5 files \(6 skipped: .*\), 14 chunks, \d+\.\d s\n$/);
  });
});

describe("dossier search --provider local", () => {
  it("--json prints [{path, anchor, text, score}]", async () => {
    expect((await dossier(["index", "docs"])).code).toBe(0);
    const result = await dossier(["search", "--provider", "local", "深度学习", "--json", "--top-k", "1"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const hits = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(hits).toHaveLength(1);
    expect(Object.keys(hits[0]!)).toEqual(["path", "anchor", "text", "score"]);
    expect(hits[0]).toMatchObject({
      path: "zh.md",
      anchor: "深度学习",
      text: "深度学习使用多层神经网络来学习复杂的表示。",
    });
  });

  it("prints numbered results with path#anchor and heading path", async () => {
    expect((await dossier(["index", "docs"])).code).toBe(0);
    const io = fakeIo();
    await runLocalSearch(io, "ribosomes", { topK: 3 });
    expect(io.stdout).toMatch(
      /^1\. paper\.pdf#page=3 {2}\(score \d\.\d{4}\)\n {3}Ribosomes assemble proteins from amino acids\.\n$/,
    );
    const none = fakeIo();
    await runLocalSearch(none, "zzzz", {});
    expect(none.stdout).toBe("no results\n");
  });

  it("reports a missing corpus", async () => {
    const result = await dossier(["search", "--provider", "local", "x", "--corpus", "missing"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^dossier: error \[NOT_FOUND\]: no corpus named "missing"/);
  });
});

describe("dossier eval retrieval", () => {
  const beir = () => {
    const dir = join(base, "beir");
    mkdirSync(dir);
    const jsonl = (rows: object[]) => `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`;
    writeFileSync(
      join(dir, "corpus.jsonl"),
      jsonl([
        { _id: "d1", title: "Apples", text: "apple orchard harvest" },
        { _id: "d2", title: "", text: "apple pie recipe with cinnamon and sugar and butter" },
        { _id: "d3", title: "Bananas", text: "banana smoothie" },
        { _id: "d4", title: "", text: "cherry tart" },
        { _id: "d5", title: "", text: "orchard tools and ladders" },
      ]),
    );
    writeFileSync(
      join(dir, "queries.jsonl"),
      jsonl([
        { _id: "q1", text: "apple orchard" },
        { _id: "q2", text: "banana" },
        { _id: "q3", text: "cherry pie" },
        { _id: "q4", text: "durian" },
      ]),
    );
    writeFileSync(
      join(dir, "qrels.tsv"),
      "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\nq1\td5\t1\nq2\td3\t1\nq2\td4\t1\nq3\td2\t1\nq4\td1\t1\n",
    );
    return [
      "eval",
      "retrieval",
      "--corpus",
      "beir/corpus.jsonl",
      "--queries",
      "beir/queries.jsonl",
      "--qrels",
      "beir/qrels.tsv",
    ];
  };

  it("prints nDCG@10, Recall@100 and MRR@10 with the default k1 = 0.9, b = 0.4", async () => {
    // Rankings: q1 [d1, d5, d2] (d5 beats d2: same idf and tf, shorter), q2 [d3], q3 [d4, d2], q4 [].
    // nDCG@10: q1 (1 + 1/log2 3 + 2/log2 4) / (2 + 1/log2 3 + 1/log2 4) = 0.8403030
    //          q2 1 / (1 + 1/log2 3) = 0.6131472; q3 (1/log2 3) / 1 = 0.6309298; q4 0 → mean 0.5210950
    // Recall@100: (1 + 1/2 + 1 + 0) / 4 = 0.625; MRR@10: (1 + 1 + 1/2 + 0) / 4 = 0.625
    const result = await dossier(beir());
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        "retrieval  BM25 k1=0.9 b=0.4",
        "documents  5",
        "queries    4",
        "nDCG@10    0.5211",
        "Recall@100 0.6250",
        "MRR@10     0.6250",
        "",
      ].join("\n"),
    );
  });

  it("takes --k1 and --b, and prints JSON", async () => {
    // b = 0: q1 d2 and d5 tie and d2 (stored first) wins → [d1, d2, d5]:
    //   (1 + 2/log2 3 + 1/log2 4) / 3.1309298 = 0.8821224; q3 d2 and d4 tie → [d2, d4]: nDCG 1, RR 1
    // nDCG@10 = (0.8821224 + 0.6131472 + 1 + 0) / 4 = 0.6238174; MRR@10 = 3 / 4
    const result = await dossier([...beir(), "--k1", "1.2", "--b", "0", "--json"]);
    expect(result.code).toBe(0);
    const figures = JSON.parse(result.stdout) as Record<string, number>;
    expect(figures).toMatchObject({
      documents: 5,
      queries: 4,
      k1: 1.2,
      b: 0,
      hybrid: false,
      missingQueries: 0,
    });
    expect(figures.ndcgAt10).toBeCloseTo(0.6238174, 6);
    expect(figures.recallAt100).toBe(0.625);
    expect(figures.mrrAt10).toBe(0.75);
  });

  it("refuses out-of-range parameters", async () => {
    const result = await dossier([...beir(), "--b", "2"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--b from 0 to 1");
  });
});
