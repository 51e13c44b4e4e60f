import { describe, expect, it } from "vitest";
import { contextWindowFor } from "./context-window.ts";

describe("contextWindowFor", () => {
  it("knows hosted models by id or dated snapshot, and nothing of local servers", () => {
    expect(contextWindowFor({ provider: "openai", modelId: "gpt-4o" })).toBe(128_000);
    expect(contextWindowFor({ provider: "openai", modelId: "gpt-4o-mini-2024-07-18" })).toBe(128_000);
    expect(contextWindowFor({ provider: "anthropic", modelId: "claude-sonnet-4-20250514" })).toBe(200_000);
    expect(contextWindowFor({ provider: "google", modelId: "gemini-2.5-flash-lite" })).toBe(1_048_576);
    expect(contextWindowFor({ provider: "ollama", modelId: "qwen3:30b" })).toBeNull();
    expect(contextWindowFor({ provider: "openai", modelId: "gpt-4" })).toBeNull();
  });
});
