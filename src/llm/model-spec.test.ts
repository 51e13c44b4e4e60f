import { describe, expect, it } from "vitest";
import type { DossierError } from "../core/errors.ts";
import { formatModelSpec, isModelSpec, parseModelSpec } from "./model-spec.ts";
import { priceFor } from "./prices.ts";
import { createModelRegistry } from "./registry.ts";

describe("parseModelSpec", () => {
  it("splits on the first colon so model ids may contain colons", () => {
    expect(parseModelSpec("ollama:llama3.1:8b")).toEqual({ provider: "ollama", modelId: "llama3.1:8b" });
    expect(parseModelSpec(" OpenAI:gpt-4o ")).toEqual({ provider: "openai", modelId: "gpt-4o" });
    expect(formatModelSpec(parseModelSpec("openai-compatible:qwen/qwen3-32b"))).toBe(
      "openai-compatible:qwen/qwen3-32b",
    );
  });

  it.each(["nonsense", "gpt-4o", "foo:bar", "openai:", ":x"])(
    "rejects %j naming the expected form",
    (value) => {
      expect(isModelSpec(value)).toBe(false);
      expect(() => parseModelSpec(value)).toThrow(/provider:model/);
    },
  );
});

describe("priceFor", () => {
  it("matches exact ids, dated snapshots by longest prefix, and configured overrides", () => {
    expect(priceFor({ provider: "openai", modelId: "gpt-4o-mini" })?.inputPerMTok).toBe(0.15);
    expect(priceFor({ provider: "openai", modelId: "gpt-4o-mini-2024-07-18" })?.inputPerMTok).toBe(0.15);
    expect(priceFor({ provider: "openai", modelId: "gpt-4o-2024-08-06" })?.inputPerMTok).toBe(2.5);
    expect(priceFor({ provider: "ollama", modelId: "llama3" })).toBeNull();
    expect(priceFor({ provider: "openai", modelId: "gpt-4omni" })).toBeNull();
    expect(
      priceFor(
        { provider: "ollama", modelId: "llama3" },
        { "ollama:llama3": { inputPerMTok: 0, outputPerMTok: 0 } },
      ),
    ).toEqual({ inputPerMTok: 0, outputPerMTok: 0 });
  });
});

describe("createModelRegistry", () => {
  it("applies per-role overrides over the default model", () => {
    const registry = createModelRegistry({
      defaultModel: "openai:gpt-4o-mini",
      roleModels: { writer: "anthropic:claude-sonnet-4-5" },
      providerKeys: { openai: "sk-test-openai", anthropic: "sk-test-anthropic" },
    });
    expect(registry.specFor("planner")).toBe("openai:gpt-4o-mini");
    expect(registry.specFor("writer")).toBe("anthropic:claude-sonnet-4-5");
    const writer = registry.forRole("writer");
    expect(writer.spec).toEqual({ provider: "anthropic", modelId: "claude-sonnet-4-5" });
    expect(writer.price?.inputPerMTok).toBe(3);
  });

  it("builds openai-compatible and ollama models with their base URLs", () => {
    const r1 = createModelRegistry({ defaultModel: "ollama:qwen3:8b" });
    expect(r1.forRole("default").price).toBeNull();
    const r2 = createModelRegistry({
      defaultModel: "openai-compatible:local",
      baseUrl: "http://127.0.0.1:9/v1",
    });
    expect(r2.forRole("default").name).toBe("openai-compatible:local");
  });

  it("reports what to configure when something is missing", () => {
    const none = createModelRegistry({});
    expect(none.configured()).toBe(false);
    expect(() => none.forRole("writer")).toThrow(/DOSSIER_MODEL/);
    const noKey = createModelRegistry({ defaultModel: "anthropic:claude-sonnet-4-5" });
    const e = (() => {
      try {
        noKey.forRole("default");
      } catch (error) {
        return error as DossierError;
      }
    })();
    expect(e?.code).toBe("PROVIDER_NOT_CONFIGURED");
    expect(e?.message).toContain("ANTHROPIC_API_KEY");
    const noUrl = createModelRegistry({ defaultModel: "openai-compatible:x" });
    expect(() => noUrl.forRole("default")).toThrow(/DOSSIER_BASE_URL/);
    expect(() => createModelRegistry({ defaultModel: "bad" })).toThrow(/provider:model/);
  });
});
