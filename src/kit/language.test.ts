import { describe, expect, it } from "vitest";
import { languageInstruction, languageName, reportLabel } from "./language.ts";

describe("languageName", () => {
  it("names the project's languages as before and any other valid code by its English name", () => {
    expect(["zh", "fr", "ru"].map(languageName)).toEqual(["Chinese (Simplified)", "French", "Russian"]);
    expect(["uk", "pl", "ar"].map(languageName)).toEqual(["Ukrainian", "Polish", "Arabic"]);
  });

  it("returns an unknown or malformed code as it is", () => {
    expect(["qqq", "not a code", ""].map(languageName)).toEqual(["qqq", "not a code", ""]);
  });
});

describe("languageInstruction", () => {
  it("asks for the language by name, in the language itself for CJK", () => {
    expect(languageInstruction("de")).toBe("Write everything in German.");
    expect(languageInstruction("uk")).toBe("Write everything in Ukrainian.");
    expect(languageInstruction("zh")).toMatch(
      /^请全部使用简体中文撰写.*\nWrite everything in Chinese \(Simplified\)\.$/s,
    );
  });
});

describe("reportLabel", () => {
  it("falls back to English without a translation", () => {
    expect([reportLabel("references", "fr"), reportLabel("references", "pl")]).toEqual([
      "Références",
      "References",
    ]);
  });
});
