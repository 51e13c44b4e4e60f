import { describe, expect, it } from "vitest";
import { checkLanguage, detectLanguage, guessLanguage } from "./language.ts";

describe("detectLanguage", () => {
  it.each([
    ["en", "The market for electric vehicles has grown quickly over the last five years."],
    ["zh", "近五年来，电动汽车市场增长迅速，特斯拉Model Y成为全球最畅销的车型。"],
    ["ja", "電気自動車の市場は過去五年間で急速に成長しました。"],
    ["ko", "전기차 시장은 지난 5년 동안 빠르게 성장했습니다."],
    [
      "de",
      "Der Markt für Elektroautos ist in den letzten fünf Jahren schnell gewachsen und wird weiter wachsen.",
    ],
    [
      "fr",
      "Le marché des voitures électriques a connu une croissance rapide dans les cinq dernières années.",
    ],
    ["es", "El mercado de los coches eléctricos ha crecido rápidamente en los últimos cinco años y sigue."],
    ["pt", "O mercado de carros elétricos cresceu rapidamente nos últimos cinco anos e não vai parar."],
    [
      "it",
      "Il mercato delle auto elettriche è cresciuto rapidamente negli ultimi cinque anni e non si ferma.",
    ],
    ["ru", "Рынок электромобилей быстро растёт последние пять лет."],
  ])("%s", (code, text) => {
    expect(detectLanguage(text)).toBe(code);
  });

  it("is undetermined for text without letters", () => {
    expect(guessLanguage("12 34 !!")).toEqual({ language: "und", confidence: 0 });
  });
});

describe("checkLanguage", () => {
  it("measures the share of prose in the expected language, CJK characters weighing 3 letters", () => {
    const zh = "电动汽车市场在过去五年中增长迅速。";
    const en = "This sentence was left in English by mistake.";
    const md = `# 报告\n\n${zh}${zh}\n\n${en}\n\n\`\`\`\nconsole.log("code is ignored entirely here");\n\`\`\`\n\n## 参考文献\n\n1. An English source title that is ignored.\n`;
    const result = checkLanguage(md, "zh-CN");
    expect(result.expected).toBe("zh");
    expect(result.detected).toBe("zh");
    // 16 Han characters per Chinese sentence (x3), 37 letters in the English one.
    expect(result.byLanguage).toEqual({ zh: 96, en: 37 });
    expect(result.share).toBeCloseTo(96 / 133, 10);
    expect(result.mismatches).toEqual([{ line: 5, language: "en", text: en }]);
  });

  it("has a null share when no prose can be determined", () => {
    expect(checkLanguage("| 1 | 2 |\n|---|---|\n", "en").share).toBeNull();
  });
});
