import { describe, expect, it } from "vitest";
import { checkLanguage } from "./language.ts";

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
