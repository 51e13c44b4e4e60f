import { describe, expect, it } from "vitest";
import { languageTag, reportPageLanguage } from "./report-lang.ts";

describe("report language", () => {
  it("reads the report page's html lang", () => {
    expect(reportPageLanguage('<!doctype html>\n<html lang="fr">\n<head></head><body></body></html>')).toBe(
      "fr",
    );
    expect(reportPageLanguage("<html class=x lang=zh-CN><body></body></html>")).toBe("zh-CN");
  });

  it("is null when the page has no lang or a malformed one", () => {
    expect(reportPageLanguage("<html><body lang=fr></body></html>")).toBeNull();
    expect(reportPageLanguage('<html lang="fr onclick=x">')).toBeNull();
    expect(reportPageLanguage("<p>no page</p>")).toBeNull();
  });

  it("keeps only well-formed tags from the bundle", () => {
    expect([languageTag("de"), languageTag("pt-BR"), languageTag("auto!"), languageTag(3)]).toEqual([
      "de",
      "pt-BR",
      null,
      null,
    ]);
  });
});
