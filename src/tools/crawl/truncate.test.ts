import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../llm/token-estimate.ts";
import { cutMarker, truncateHeadTail } from "./truncate.ts";

describe("truncateHeadTail", () => {
  it("leaves a page within the budget alone", () => {
    expect(truncateHeadTail("short page", 100)).toEqual({
      text: "short page",
      truncated: false,
      omittedChars: 0,
    });
  });

  it("keeps head and tail within the budget and marks the cut", () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `Line ${i} of the page with some words.`);
    const text = lines.join("\n");
    const result = truncateHeadTail(text, 1000);
    expect(result.truncated).toBe(true);
    expect(estimateTokens(result.text)).toBeLessThanOrEqual(1000);
    expect(result.text.startsWith("Line 0 of the page")).toBe(true);
    expect(result.text.endsWith("Line 1999 of the page with some words.")).toBe(true);
    expect(result.text).toContain(cutMarker(result.omittedChars).trim());
    const [head, tail] = result.text.split(cutMarker(result.omittedChars));
    expect(text.startsWith(head!)).toBe(true);
    expect(text.endsWith(tail!)).toBe(true);
    expect(head!.length).toBeGreaterThan(tail!.length);
    expect(head!.length + tail!.length + result.omittedChars).toBeLessThanOrEqual(text.length);
  });

  it("fits CJK text, which costs more tokens per character", () => {
    const text = "東京の天気は晴れ。".repeat(3000);
    const result = truncateHeadTail(text, 500);
    expect(result.truncated).toBe(true);
    expect(estimateTokens(result.text)).toBeLessThanOrEqual(500);
  });
});
