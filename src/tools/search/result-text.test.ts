import { describe, expect, it } from "vitest";
import { cleanSnippet, isHttpUrl, plainText, toPublishedAt, truncate } from "./result-text.ts";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

describe("plainText", () => {
  it("removes tags, scripts and decodes entities", () => {
    expect(
      plainText("<strong>Solar</strong> &amp; wind&nbsp;&#8212; &#x2013; &lt;b&gt;<script>x()</script>"),
    ).toBe("Solar & wind — – <b>");
    expect(plainText("line<br/>break\n\n  spaced")).toBe("line break spaced");
    expect(plainText("unknown &bogus; kept")).toBe("unknown &bogus; kept");
    expect(plainText(null)).toBe("");
  });
});

describe("truncate and cleanSnippet", () => {
  it("cuts at a word boundary near the limit and marks the cut", () => {
    expect(truncate("alpha beta gamma delta", 15)).toBe("alpha beta…");
    expect(truncate("short", 15)).toBe("short");
    expect(cleanSnippet("y".repeat(600))).toHaveLength(500);
  });
});

describe("toPublishedAt", () => {
  it("reads the date shapes providers use", () => {
    expect(toPublishedAt("2024-01-15", NOW)).toBe("2024-01-15");
    expect(toPublishedAt("2024-01-15T10:30:00", NOW)).toBe("2024-01-15T10:30:00.000Z");
    expect(toPublishedAt("2024-01-15T10:30:00+02:00", NOW)).toBe("2024-01-15T08:30:00.000Z");
    expect(toPublishedAt("Mon, 15 Jan 2024 10:30:00 GMT", NOW)).toBe("2024-01-15T10:30:00.000Z");
    expect(toPublishedAt("Jan 15, 2024", NOW)).toBe("2024-01-15");
    expect(toPublishedAt("January 15, 2024", NOW)).toBe("2024-01-15");
  });

  it("resolves relative ages against the clock and ignores what it cannot read", () => {
    expect(toPublishedAt("3 days ago", NOW)).toBe("2026-11-19");
    expect(toPublishedAt("a week ago", NOW)).toBe("2026-11-15");
    expect(toPublishedAt("2 hours ago", NOW)).toBe("2026-11-22");
    expect(toPublishedAt("recently", NOW)).toBeUndefined();
    expect(toPublishedAt(12345, NOW)).toBeUndefined();
    expect(toPublishedAt("", NOW)).toBeUndefined();
  });
});

describe("isHttpUrl", () => {
  it("keeps only absolute http(s) URLs", () => {
    expect(isHttpUrl("https://a.example/x")).toBe(true);
    expect(isHttpUrl("http://a.example")).toBe(true);
    expect(isHttpUrl("javascript:alert(1)")).toBe(false);
    expect(isHttpUrl("/relative")).toBe(false);
    expect(isHttpUrl(undefined)).toBe(false);
  });
});
