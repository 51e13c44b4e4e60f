import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getAnalyzer } from "./analyzer.ts";
import { bm25Idf, ftsString, luceneLength, parseQuery, phraseMatch } from "./bm25.ts";
import { CorpusIndex } from "./corpus-index.ts";
import { pseudoRandomBytes } from "./test-fixtures.ts";
import { termFrequencies } from "./tokenize.ts";
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

  it("restricts to chunks containing the phrases given apart from the query", () => {
    index.write([doc("p1", "machine learning is fun"), doc("p2", "learning about a machine")]);
    expect(scores("machine learning").map((r) => r[0])).toEqual(["p1", "p2"]);
    const parsed = index.parseQuery("machine learning", ["Machines  Learned"]);
    expect(parsed).toEqual({
      terms: new Map([
        ["machin", 1],
        ["learn", 1],
      ]),
      phrases: [["machin", "learn"]],
    });
    const hits = index.searchBm25(parsed, { k1: 0.9, b: 0.4, limit: 10 });
    expect(hits.map((h) => index.chunks([h.chunkId])[0]!.path)).toEqual(["p1"]);
    expect(phraseMatch([["a", "b"], ["c"]])).toBe('"a" + "b" AND "c"');
  });

  it("quantises lengths as Lucene's norms", () => {
    // SmallFloat.intToByte4 / byte4ToInt: 24 free values, then n − 24 with four significant bits.
    for (let n = 0; n < 40; n++) expect(luceneLength(n)).toBe(n);
    expect(luceneLength(41)).toBe(40);
    expect(luceneLength(100)).toBe(96);
    expect(luceneLength(201)).toBe(200);
    expect(luceneLength(1000)).toBe(984);
    expect(luceneLength(1_000_000)).toBe(24 + 0b1111 * 2 ** 16);
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

describe("queries are text, never FTS5 syntax", () => {
  const paths = (query: string) =>
    index.searchBm25(query, { k1: 0.9, b: 0.4, limit: 10 }).map((s) => index.chunks([s.chunkId])[0]!.path);
  const limit = { k1: 0.9, b: 0.4, limit: 10 };

  beforeEach(() => {
    index.write([
      doc("q1", "Low-code platforms change how software teams deliver"),
      doc("q2", "Near the river, title: a report about rivers"),
      doc("q3", "Maintenance costs of generated code"),
    ]);
  });

  it("reads quotation marks as plain characters, paired or not", () => {
    const plain = paths("low code platforms software");
    expect(plain[0]).toBe("q1");
    for (const query of [
      '"“low code platforms software”"',
      '"“low code platforms software',
      '"low code" platforms "software"',
      "“low code platforms software”",
    ]) {
      expect(paths(query)).toEqual(plain);
    }
    expect(paths('""""')).toEqual([]);
    expect(parseQuery('"Machine  Learning" rocks')).toEqual({
      terms: new Map([
        ["machin", 1],
        ["learn", 1],
        ["rock", 1],
      ]),
      phrases: [],
    });
  });

  it("reads AND, OR, NOT and NEAR as words", () => {
    expect(paths("river NEAR report")[0]).toBe("q2");
    expect(paths("NEAR(river report)")).toEqual(paths("near river report"));
    expect(paths("costs NOT code")).toEqual(paths("costs code"));
    expect(paths("costs OR rivers AND code")).toEqual(paths("costs rivers code"));
    expect(parseQuery("a AND b OR c NOT d NEAR e", { analyzer: getAnalyzer("standard") }).terms).toEqual(
      new Map(["a", "and", "b", "or", "c", "not", "d", "near", "e"].map((t) => [t, 1])),
    );
  });

  it("reads parentheses, *, :, ^ and - as punctuation", () => {
    expect(paths("(maintenance) cost*")).toEqual(paths("maintenance cost"));
    expect(paths("title: report")).toEqual(paths("title report"));
    expect(paths("tokens: river")).toEqual(paths("tokens river"));
    expect(paths("-code -software")).toEqual(paths("code software"));
    expect(paths("^river {tokens}: report")).toEqual(paths("river tokens report"));
    expect(paths("*")).toEqual([]);
  });

  it("quotes every term of the FTS5 expression of required phrases", () => {
    expect(ftsString('say "hi"')).toBe('"say ""hi"""');
    for (const text of ['"a" OR b', "NEAR(x y)", "col:val*", "-not (this)", "^start"]) {
      const expression = phraseMatch([[text]]);
      expect(expression.startsWith('"') && expression.endsWith('"')).toBe(true);
      expect(expression.slice(1, -1).replaceAll('""', "")).not.toContain('"');
    }
    // Phrases from hostile text are plain phrases, never operators.
    for (const phrase of [
      '"river" OR "code"',
      "NEAR(river report)",
      "tokens:river",
      "-river",
      "river*",
      "(",
    ]) {
      expect(() => index.searchBm25(index.parseQuery("river", [phrase]), limit)).not.toThrow();
    }
    expect(index.searchBm25(index.parseQuery("river", ["river"]), limit)).toHaveLength(1);
    expect(index.searchBm25(index.parseQuery("river", ['"river" OR "code"']), limit)).toEqual([]);
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
    const analyze = getAnalyzer("english").analyze;
    const docs = texts.map((t) => termFrequencies(analyze(t)));
    const lengths = texts.map((t) => analyze(t).length);
    const avgdl = lengths.reduce((a, b) => a + b, 0) / texts.length;
    const reference = (query: string, k1: number, b: number) => {
      const q = termFrequencies(analyze(query));
      return docs
        .map((tf, d) => {
          let score = 0;
          for (const [term, qtf] of q) {
            const df = docs.filter((x) => x.has(term)).length;
            const f = tf.get(term) ?? 0;
            if (df === 0 || f === 0) continue;
            const dl = luceneLength(lengths[d]!);
            score += qtf * bm25Idf(texts.length, df) * (f / (f + k1 * (1 - b + (b * dl) / avgdl)));
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
