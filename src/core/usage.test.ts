import { describe, expect, it } from "vitest";
import { addCallUsage, emptyUsage, failedRequestUsage } from "./usage.ts";

describe("what a failed request counts as", () => {
  const request = { estimatedInputTokens: 1200.4, maxOutputTokens: 800 };
  const price = { inputPerMTok: 1, outputPerMTok: 10 };

  it("an error answer: one call of no tokens at no cost, priced or not", () => {
    expect(failedRequestUsage("error-answer", request, price)).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
    });
    expect(failedRequestUsage("error-answer", request, null).costUsd).toBe(0);
  });

  it("no usable answer: its estimated input and whole output cap, priced when the price is known", () => {
    expect(failedRequestUsage("no-answer", request, price)).toEqual({
      inputTokens: 1201,
      outputTokens: 800,
      costUsd: (1201 * 1 + 800 * 10) / 1e6,
    });
    expect(failedRequestUsage("no-answer", request, null)).toEqual({
      inputTokens: 1201,
      outputTokens: 800,
      costUsd: null,
    });
  });

  it("counts as one model call in the totals, which stay known", () => {
    const totals = addCallUsage(emptyUsage(), failedRequestUsage("error-answer", request, price));
    expect(totals).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0, llmCalls: 1, toolCalls: 0 });
  });
});
