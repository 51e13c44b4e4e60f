import { describe, expect, it } from "vitest";
import { lookupModel, type ModelTable } from "./model-table.ts";

const table: ModelTable<number> = {
  openai: { "gpt-4.1": 1, "gpt-4.1-mini": 2, "gpt-5": 3 },
  anthropic: { "claude-sonnet-4": 4 },
};
const spec = (provider: string, modelId: string) => ({ provider, modelId }) as never;

describe("model table lookup", () => {
  it("takes the exact id first, else the longest key a dated variant extends", () => {
    expect(lookupModel(table, spec("openai", "gpt-4.1-mini"))).toBe(2);
    expect(lookupModel(table, spec("openai", "gpt-4.1-mini-2025-04-14"))).toBe(2);
    expect(lookupModel(table, spec("openai", "gpt-4.1-2025-04-14"))).toBe(1);
    expect(lookupModel(table, spec("anthropic", "claude-sonnet-4-20250514"))).toBe(4);
  });

  it("knows nothing of an unlisted provider, an unlisted model, or a key the id merely starts with", () => {
    expect(lookupModel(table, spec("google", "gpt-5"))).toBeNull();
    expect(lookupModel(table, spec("openai", "o3"))).toBeNull();
    expect(lookupModel(table, spec("openai", "gpt-50"))).toBeNull();
  });
});
