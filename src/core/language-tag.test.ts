import { describe, expect, it } from "vitest";
import { languageTag } from "./language-tag.ts";

describe("languageTag", () => {
  it("passes well-formed language tags and refuses anything else", () => {
    expect(["en", "zh-CN", "pt-BR", "zh-Hans-CN"].map(languageTag)).toEqual([
      "en",
      "zh-CN",
      "pt-BR",
      "zh-Hans-CN",
    ]);
    expect(['en" onload="x', "e", "english language", "", undefined, "en-"].map(languageTag)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
