import { describe, expect, it } from "vitest";
import { detectLanguage, guessLanguage, guessQueryLanguage } from "./language.ts";

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

describe("guessLanguage", () => {
  it("tells Russian from Ukrainian by trigrams", () => {
    expect(detectLanguage("Які наслідки війни для української економіки?")).toBe("uk");
    expect(detectLanguage("Каковы последствия санкций для российской экономики?")).toBe("ru");
  });

  it("tells single-script languages by script", () => {
    expect(detectLanguage("ما هو تأثير الذكاء الاصطناعي على سوق العمل؟")).toBe("ar");
    expect(detectLanguage("Ποιες είναι οι επιπτώσεις της κλιματικής αλλαγής;")).toBe("el");
  });

  it("leaves short Latin text and Latin text without the verdict's function words undetermined", () => {
    // Under 12 letters: too short for trigrams.
    expect(guessLanguage("Le vin rouge")).toEqual({ language: "und", confidence: 0 });
    // Trigrams call these Spanish, Turkish or Portuguese; no function word of it backs that up.
    for (const text of ["BLM gene encodes RecQ-class DNA helicase.", "Tirasemtiv targets cardiac muscle."]) {
      expect(["en", "und"]).toContain(detectLanguage(text));
    }
  });

  it("gives a confidence between 0 and 1, lower for a mixed text", () => {
    const pure = guessLanguage(
      "Der Markt für Elektroautos ist in den letzten fünf Jahren schnell gewachsen.",
    );
    const mixed = guessLanguage(
      "Der Markt für Elektroautos ist gewachsen, says Рынок электромобилей растёт.",
    );
    expect(pure.language).toBe("de");
    expect(pure.confidence).toBeGreaterThan(0);
    expect(pure.confidence).toBeLessThanOrEqual(1);
    expect(mixed.confidence).toBeLessThan(pure.confidence);
  });
});

/** The rule `language: auto` used before this module, for questions it already handled. */
function previousQueryLanguage(text: string): string {
  const count = (re: RegExp) => text.match(re)?.length ?? 0;
  const kana = count(/[\u3040-\u30ff]/g);
  const hangul = count(/[\uac00-\ud7af]/g);
  const han = count(/[\u4e00-\u9fff]/g);
  if (kana > 0) return "ja";
  if (hangul > han && hangul > 0) return "ko";
  if (han > 0) return "zh";
  return "en";
}

describe("guessQueryLanguage", () => {
  it.each([
    ["fr", "Quels sont les effets du télétravail sur la productivité des entreprises françaises ?"],
    ["fr", "Qui a inventé le vaccin contre la rage ?"],
    ["de", "Welche Auswirkungen hat die Energiewende auf die deutsche Industrie?"],
    ["de", "Wer hat das Automobil erfunden?"],
    ["es", "¿Cuál es el impacto de la inteligencia artificial en el empleo en España?"],
    ["es", "Historia de la inflación en Argentina"],
    ["ru", "Каковы последствия санкций для российской экономики?"],
    ["ru", "Кто изобрёл радио?"],
    ["it", "Quali sono gli effetti del cambiamento climatico sull'agricoltura italiana?"],
  ])("resolves a question in %s to it", (code, question) => {
    expect(guessQueryLanguage(question)).toBe(code);
  });

  // Short English questions full of names and terms that trigrams alone take for another language.
  const english = [
    "How do LLM agents do tool use?",
    "Is nuclear energy safe?",
    "Tell me about coffee",
    "mRNA vaccine side effects",
    "Mercado Libre growth strategy",
    "PCSK9 inhibitors decrease plasma Lp(a) levels.",
    "Nvidia vs AMD data center GPUs 2024",
    "What is the state of solid-state battery research?",
    "Compare the climate policies of France and Germany.",
  ];
  const cjk = [
    "固态电池的商业化进展如何？",
    "比较 Tesla 和 BMW 在欧洲的销量",
    "What does 内卷 mean for young workers?",
    "電気自動車の市場はどう変わったか",
    "전기차 시장은 어떻게 변하고 있나요?",
  ];
  it("resolves English and CJK questions as before", () => {
    for (const q of [...english, ...cjk])
      expect([q, guessQueryLanguage(q)]).toEqual([q, previousQueryLanguage(q)]);
    expect(english.map((q) => guessQueryLanguage(q))).toEqual(english.map(() => "en"));
    expect(cjk.map((q) => guessQueryLanguage(q))).toEqual(["zh", "zh", "zh", "ja", "ko"]);
  });

  it("falls back to English (or the given fallback) for a too-short or mixed question", () => {
    for (const q of [
      "Le vin?",
      "Energiewende Folgen",
      "Compare Tesla und BMW sales in Europe",
      "",
      "2024?",
    ]) {
      expect([q, guessQueryLanguage(q)]).toEqual([q, "en"]);
    }
    expect(guessQueryLanguage("Le vin?", "de")).toBe("de");
  });
});
