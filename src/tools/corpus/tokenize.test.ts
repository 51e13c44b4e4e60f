import { describe, expect, it } from "vitest";
import { MAX_TOKEN_LENGTH, termFrequencies, tokenize } from "./tokenize.ts";

describe("tokenize", () => {
  it("lower-cases and splits Latin text at UAX #29 word boundaries, as Lucene's StandardTokenizer", () => {
    expect(tokenize("Hello, World! It's 3.14 — e-mail, e.g. U.S.A. 1,000.5")).toEqual([
      "hello",
      "world",
      "it's",
      "3.14",
      "e",
      "mail",
      "e.g",
      "u.s.a",
      "1,000.5",
    ]);
  });

  it("makes typographic apostrophes ASCII", () => {
    expect(tokenize("Don’t DON＇T don't")).toEqual(["don't", "don't", "don't"]);
  });

  it("keeps diacritics and folds full-width forms (NFKC)", () => {
    expect(tokenize("Café ＡＢＣ１２３ Ｎａïve")).toEqual(["café", "abc123", "naïve"]);
  });

  it("segments Chinese into words", () => {
    expect(tokenize("机器学习是人工智能的一个分支。")).toEqual([
      "机器",
      "学习",
      "是",
      "人工",
      "智能",
      "的",
      "一个",
      "分支",
    ]);
  });

  it("segments Japanese into words", () => {
    expect(tokenize("東京タワーに行きました")).toEqual(["東京タワー", "に", "行き", "ま", "した"]);
  });

  it("segments mixed scripts and drops punctuation and symbols", () => {
    expect(tokenize("用 Dossier 搜索「本地文档」!! 🚀 #tag")).toEqual([
      "用",
      "dossier",
      "搜索",
      "本地",
      "文",
      "档",
      "tag",
    ]);
  });

  it("drops tokens longer than the limit", () => {
    expect(tokenize(`ok ${"x".repeat(MAX_TOKEN_LENGTH + 1)} ${"y".repeat(MAX_TOKEN_LENGTH)}`)).toEqual([
      "ok",
      "y".repeat(MAX_TOKEN_LENGTH),
    ]);
  });

  it("returns nothing for text without words", () => {
    expect(tokenize("  ...  ---  ")).toEqual([]);
  });

  it("counts term frequencies", () => {
    expect([...termFrequencies(["a", "b", "a"])]).toEqual([
      ["a", 2],
      ["b", 1],
    ]);
  });
});
