import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bm25Idf, parseQuery, phraseMatch } from "./bm25.ts";
import { CorpusIndex } from "./corpus-index.ts";
import { pseudoRandomBytes } from "./test-fixtures.ts";
import { termFrequencies, tokenize } from "./tokenize.ts";
import type { DocumentInput } from "./types.ts";

let index: CorpusIndex;

const doc = (path: string, ...texts: string[]): DocumentInput => ({
  path,
  kind: "text",
  title: path,
  contentHash: path,
  size: 0,
  mtimeMs: 0,
  chunks: texts.map((text) => ({ text, anchor: "", headingPath: [] })),
});

const scores = (query: string, k1 = 0.9, b = 0.4) =>
  index.searchBm25(query, { k1, b, limit: 10 }).map((s) => [index.chunks([s.chunkId])[0]!.path, s.score]);

beforeEach(() => {
  index = CorpusIndex.open({ path: ":memory:" });
  // N = 3 chunks, lengths 2, 3, 4: avgdl = 3.
  index.write([
    doc("d1", "apple banana"),
    doc("d2", "apple apple cherry"),
    doc("d3", "banana cherry date elderberry"),
  ]);
});

afterEach(() => index.close());

describe("BM25 (Lucene formula, configurable k1 and b)", () => {
  // idf of a term in 2 of 3 chunks: ln(1 + (3 − 2 + 0.5) / (2 + 0.5)) = ln(1.6)
  const idf = Math.log(1.6);

  it("uses Lucene's idf", () => {
    expect(bm25Idf(3, 2)).toBe(Math.log(1.6));
    expect(bm25Idf(3, 1)).toBe(Math.log(1 + 2.5 / 1.5));
  });

  it("scores with the defaults k1 = 0.9, b = 0.4", () => {
    // d2: tf 2, dl 3 → 2 / (2 + 0.9·(0.6 + 0.4·3/3)) = 2 / 2.9
    // d1: tf 1, dl 2 → 1 / (1 + 0.9·(0.6 + 0.4·2/3)) = 1 / 1.78
    const result = scores("apple");
    expect(result.map((r) => r[0])).toEqual(["d2", "d1"]);
    expect(result[0]![1]).toBeCloseTo((idf * 2) / 2.9, 12);
    expect(result[1]![1]).toBeCloseTo(idf / 1.78, 12);
  });

  it("sums over query terms", () => {
    // d3: banana and cherry, tf 1, dl 4 → 2 · 1 / (1 + 0.9·(0.6 + 0.4·4/3)) = 2 / 2.02
    const result = scores("banana cherry");
    expect(result.map((r) => r[0])).toEqual(["d3", "d1", "d2"]);
    expect(result[0]![1]).toBeCloseTo((2 * idf) / 2.02, 12);
    expect(result[1]![1]).toBeCloseTo(idf / 1.78, 12);
    expect(result[2]![1]).toBeCloseTo(idf / 1.9, 12);
  });

  it("takes other k1 and b", () => {
    // k1 = 1.2, b = 0.75: d1 → 1 / (1 + 1.2·(0.25 + 0.75·2/3)) = 1 / 1.9; d2 → 2 / (2 + 1.2) = 2 / 3.2
    const classic = scores("apple", 1.2, 0.75);
    expect(classic[0]![1]).toBeCloseTo((idf * 2) / 3.2, 12);
    expect(classic[1]![1]).toBeCloseTo(idf / 1.9, 12);
    // b = 0: no length normalisation, d1 and d3 score the same for "banana".
    const flat = scores("banana", 0.9, 0);
    expect(flat.map((r) => r[1])).toEqual([idf / 1.9, idf / 1.9]);
    expect(flat.map((r) => r[0])).toEqual(["d1", "d3"]);
  });

  it("counts a repeated query term that many times", () => {
    const once = scores("apple")[0]![1] as number;
    expect(scores("apple APPLE")[0]![1]).toBeCloseTo(2 * once, 12);
  });

  it("returns nothing for unknown terms or an empty query", () => {
    expect(scores("durian")).toEqual([]);
    expect(scores("!!!")).toEqual([]);
  });

  it("restricts to chunks containing a quoted phrase", () => {
    index.write([doc("p1", "machine learning is fun"), doc("p2", "learning about a machine")]);
    expect(scores("machine learning").map((r) => r[0])).toEqual(["p1", "p2"]);
    expect(scores('"machine learning"').map((r) => r[0])).toEqual(["p1"]);
    expect(parseQuery('"Machine  Learning" rocks')).toEqual({
      terms: new Map([
        ["machine", 1],
        ["learning", 1],
        ["rocks", 1],
      ]),
      phrases: [["machine", "learning"]],
    });
    expect(phraseMatch([["a", "b"], ["c"]])).toBe('"a b" AND "c"');
  });

  it("keeps N and avgdl right after removals", () => {
    index.remove(["d3"]);
    // N = 2, avgdl = 2.5, df(apple) = 2: idf = ln(1 + 0.5/2.5) = ln(1.2)
    // d1: 1 / (1 + 0.9·(0.6 + 0.4·2/2.5)) = 1 / 1.828
    const result = scores("apple");
    expect(result[1]).toEqual(["d1", expect.closeTo(Math.log(1.2) / 1.828, 12)]);
    expect(index.stats()).toEqual({ documents: 2, chunks: 2, totalLength: 5 });
  });
});

describe("BM25 against a brute-force reference", () => {
  it("ranks and scores a random corpus exactly as the formula says", () => {
    const words = ["ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen", "ibis", "jay", "koi", "lynx"];
    const noise = pseudoRandomBytes(200 * 30, 11);
    const texts = Array.from({ length: 200 }, (_, d) => {
      const length = 3 + (noise[d * 30]! % 25);
      return Array.from({ length }, (_, i) => words[noise[d * 30 + i + 1]! % (i % 3 === 0 ? 4 : 12)]).join(
        " ",
      );
    });
    index.remove(["d1", "d2", "d3"]);
    index.write(texts.map((t, i) => doc(`r${i}`, t)));
    const docs = texts.map((t) => termFrequencies(tokenize(t)));
    const lengths = texts.map((t) => tokenize(t).length);
    const avgdl = lengths.reduce((a, b) => a + b, 0) / texts.length;
    const reference = (query: string, k1: number, b: number) => {
      const q = termFrequencies(tokenize(query));
      return docs
        .map((tf, d) => {
          let score = 0;
          for (const [term, qtf] of q) {
            const df = docs.filter((x) => x.has(term)).length;
            const f = tf.get(term) ?? 0;
            if (df === 0 || f === 0) continue;
            score += qtf * bm25Idf(texts.length, df) * (f / (f + k1 * (1 - b + (b * lengths[d]!) / avgdl)));
          }
          return [`r${d}`, score] as [string, number];
        })
        .filter(([, s]) => s > 0)
        .sort((x, y) => y[1] - x[1] || Number(x[0].slice(1)) - Number(y[0].slice(1)))
        .slice(0, 10);
    };
    for (const [query, k1, b] of [
      ["ant bee", 0.9, 0.4],
      ["lynx koi jay", 0.9, 0.4],
      ["cat cat fox", 1.2, 0.75],
      ["dog eel gnu hen", 2, 1],
    ] as const) {
      const got = scores(query, k1, b);
      const want = reference(query, k1, b);
      expect(got.map((g) => g[0])).toEqual(want.map((w) => w[0]));
      got.forEach((g, i) => {
        expect(g[1]).toBeCloseTo(want[i]![1], 10);
      });
    }
  });
});
