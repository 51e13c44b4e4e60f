import { describe, expect, it } from "vitest";
import {
  ANALYZER_NAMES,
  DEFAULT_ANALYZER,
  ENGLISH_STOPWORDS,
  englishTerm,
  getAnalyzer,
  isAnalyzerName,
  porterStem,
} from "./analyzer.ts";

const english = getAnalyzer("english");
const standard = getAnalyzer("standard");

describe("the english analyzer", () => {
  it("is the default", () => {
    expect(DEFAULT_ANALYZER).toBe("english");
    expect(ANALYZER_NAMES).toEqual(["english", "standard"]);
    expect(isAnalyzerName("english")).toBe(true);
    expect(isAnalyzerName("german")).toBe(false);
  });

  it("uses Lucene's 33 English stopwords", () => {
    expect(ENGLISH_STOPWORDS.size).toBe(33);
    for (const word of ["a", "and", "the", "their", "then", "there", "will", "with", "such", "into"]) {
      expect(ENGLISH_STOPWORDS.has(word)).toBe(true);
    }
    // Not in Lucene's list, so kept.
    for (const word of ["near", "we", "from", "have", "s"]) expect(ENGLISH_STOPWORDS.has(word)).toBe(false);
    expect(english.analyze("To be or not to be: that is the question")).toEqual(["question"]);
  });

  it("stems with Porter's algorithm", () => {
    const cases: [string, string][] = [
      ["caresses", "caress"],
      ["ponies", "poni"],
      ["cats", "cat"],
      ["relational", "relat"],
      ["generalization", "gener"],
      ["hopefulness", "hope"],
      ["running", "run"],
      ["agreed", "agre"],
      ["studies", "studi"],
      ["archaeology", "archaeolog"],
      ["sensibility", "sensibl"],
      ["is", "is"],
    ];
    for (const [word, stem] of cases) expect(porterStem(word)).toBe(stem);
  });

  it("removes the possessive 's before the stopword check and stemming", () => {
    expect(englishTerm("dossier's")).toBe("dossier");
    expect(englishTerm("it's")).toBeUndefined();
    expect(english.analyze("The Patient’s cells' responses")).toEqual(["patient", "cell", "respons"]);
  });

  it("matches inflected forms in a query and a document alike", () => {
    expect(english.analyze("Machine learning models")).toEqual(english.analyze("machines LEARNED the model"));
  });

  it("stems Latin-script words with diacritics and digits, keeps other scripts as segmented", () => {
    expect(english.analyze("naïve cafés 1990s")).toEqual(["naïv", "café", "1990"]);
    expect(english.analyze("机器学习是人工智能的一个分支")).toEqual(
      standard.analyze("机器学习是人工智能的一个分支"),
    );
    expect(english.analyze("Москва and Αθήνα")).toEqual(["москва", "αθήνα"]);
    expect(english.analyze("用 Dossier 搜索 documents")).toEqual(["用", "dossier", "搜索", "document"]);
  });
});

describe("the standard analyzer", () => {
  it("keeps every word, unstemmed", () => {
    expect(standard.analyze("The cats are running")).toEqual(["the", "cats", "are", "running"]);
  });
});
