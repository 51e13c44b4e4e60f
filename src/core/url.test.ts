import { describe, expect, it } from "vitest";
import { isTrackingParam, normalizeUrl } from "./url.ts";

describe("normalizeUrl", () => {
  it("maps variants of one page to one key", () => {
    const variants = [
      "https://www.example.com/path/",
      "http://example.com/path",
      "https://EXAMPLE.com/path?utm_source=news&utm_medium=x",
      "https://example.com:443/path#section",
      "https://example.com/path?fbclid=abc&gclid=1",
    ];
    const keys = new Set(variants.map(normalizeUrl));
    expect([...keys]).toEqual(["//example.com/path"]);
  });

  it("keeps meaningful parameters, sorted", () => {
    expect(normalizeUrl("https://x.org/s?q=2&a=1&utm_campaign=z")).toBe("//x.org/s?a=1&q=2");
    expect(normalizeUrl("https://x.org/s?q=1")).not.toBe(normalizeUrl("https://x.org/s?q=2"));
  });

  it("keeps non-default ports and treats the root path as empty", () => {
    expect(normalizeUrl("http://localhost:8080/")).toBe("//localhost:8080");
    expect(normalizeUrl("https://x.org/")).toBe("//x.org");
  });

  it("returns unparsable input trimmed", () => {
    expect(normalizeUrl("  not a url ")).toBe("not a url");
  });

  it("recognises tracking parameters", () => {
    expect(isTrackingParam("UTM_Source")).toBe(true);
    expect(isTrackingParam("q")).toBe(false);
  });
});
