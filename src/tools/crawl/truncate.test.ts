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

  it("takes the head's share as asked: 60/40 keeps a larger tail than the default 70/30", () => {
    const text = Array.from({ length: 4000 }, (_, i) => `Line ${i} of the page with some words.`).join("\n");
    const share = (headShare?: number) => {
      const r = truncateHeadTail(text, 2000, headShare);
      const [head, tail] = r.text.split(cutMarker(r.omittedChars));
      return head!.length / (head!.length + tail!.length);
    };
    expect(share(0.6)).toBeCloseTo(0.6, 2);
    expect(share()).toBeCloseTo(0.7, 2);
  });

  it("fits CJK text, which costs more tokens per character", () => {
    const text = "東京の天気は晴れ。".repeat(3000);
    const result = truncateHeadTail(text, 500);
    expect(result.truncated).toBe(true);
    expect(estimateTokens(result.text)).toBeLessThanOrEqual(500);
  });
});
