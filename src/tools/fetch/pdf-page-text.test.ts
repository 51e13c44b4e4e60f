import { describe, expect, it } from "vitest";
import {
  cleanPdfPageText,
  formatPageList,
  hasExtractableText,
  joinHyphenatedLines,
  readPdfPageText,
  textQuality,
} from "./pdf-page-text.ts";

const CONTROL_GARBAGE = "\u0003\u0004\u0005\u0006\u0007\b \u0010\u0011\u0012\u0013 \u0014\u0003\u0015";

describe("the PDF page detector", () => {
  it("counts visible, word and broken characters", () => {
    expect(textQuality("ab 1,\n\u0003\uE000")).toEqual({ visible: 6, wordCharacters: 3, broken: 2 });
  });

  it("accepts text in any script, with numbers and punctuation", () => {
    for (const text of [
      "Photosynthesis converts light into chemical energy.",
      "机器学习是人工智能的一个分支。",
      "Table 3: 12.5 % (n = 40), p < 0.01",
      "Москва — столица России.",
      "11",
    ]) {
      expect(hasExtractableText(text)).toBe(true);
    }
  });

  it("refuses empty pages, control characters, private-use glyphs and symbol soup", () => {
    for (const text of [
      "",
      "  \n\t ",
      CONTROL_GARBAGE,
      `${CONTROL_GARBAGE} 11`,
      "\uE001\uE002\uE003\uE004 \uE005\uE006",
      "!\"#$%&'()*+,-./ !#$% &'()",
      "\uFFFD\uFFFD\uFFFD abc",
    ]) {
      expect(hasExtractableText(text)).toBe(false);
    }
  });

  it("tolerates a few stray control characters in real text and drops them", () => {
    const text = "Mitochondria release energy\u0002 through cellular respiration.";
    expect(hasExtractableText(text)).toBe(true);
    expect(readPdfPageText(text)).toEqual({
      text: "Mitochondria release energy through cellular respiration.",
      extractable: true,
    });
    expect(readPdfPageText(CONTROL_GARBAGE)).toEqual({ text: "", extractable: false });
  });
});

describe("cleaning a PDF page's text", () => {
  it("joins words hyphenated across line ends, only before a lower-case letter", () => {
    expect(joinHyphenatedLines("an exam-\nple and hyphen-  \n  ation")).toBe("an example and hyphenation");
    expect(joinHyphenatedLines("soft\u00AD\nhyphen and in\u00ADside")).toBe("softhyphen and inside");
    expect(joinHyphenatedLines("Covid-\n19, Jean-\nPaul, well-known, end -\nnext")).toBe(
      "Covid-\n19, Jean-\nPaul, well-known, end -\nnext",
    );
  });

  it("normalises line ends, trims and collapses blank lines", () => {
    expect(cleanPdfPageText("  a  \r\n\r\n\r\n\r\nb\fc  ")).toBe("a\n\nb\nc");
  });

  it("lists pages with runs as ranges", () => {
    expect(formatPageList([11])).toBe("page 11");
    expect(formatPageList([12, 3, 4, 5, 9, 10, 3])).toBe("pages 3–5, 9, 10, 12");
  });
});
