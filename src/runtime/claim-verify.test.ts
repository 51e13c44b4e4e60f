import { describe, expect, it } from "vitest";
import { scriptedRegistry } from "../../test/scripted/harness.ts";
import { scriptedModel } from "../../test/scripted/scripted-model.ts";
import { isDossierError } from "../core/errors.ts";
import { createModelRegistry } from "../llm/registry.ts";
import { createStrategyRegistry } from "../strategies/registry.ts";
import { checkVerifyModels } from "./claim-verify.ts";
import { estimateResearch } from "./estimate.ts";

describe("claim verification in a run", () => {
  it("judge and rewrite need a model, refused before the run; check and off do not", () => {
    const none = createModelRegistry({});
    expect(() => checkVerifyModels("check", none)).not.toThrow();
    expect(() => checkVerifyModels("off", none)).not.toThrow();
    for (const mode of ["judge", "rewrite"] as const) {
      let error: unknown;
      try {
        checkVerifyModels(mode, none);
      } catch (e) {
        error = e;
      }
      expect(isDossierError(error, "MODEL_NOT_CONFIGURED")).toBe(true);
    }
  });

  it("counts the judge's and the rewrite's calls in the estimate; check adds none", () => {
    const registry = scriptedRegistry({ default: scriptedModel([], { checkAtEnd: false }) });
    const strategy = createStrategyRegistry().get("minddr");
    const estimate = (verify?: "check" | "judge" | "rewrite") =>
      estimateResearch({ strategy, registry, budget: {}, webReading: true, ...(verify ? { verify } : {}) });
    const base = estimate();
    expect(estimate("check").llmCalls).toEqual(base.llmCalls);
    const judge = estimate("judge");
    expect(judge.llmCalls).toEqual([base.llmCalls[0] + 1, base.llmCalls[1] + 6]);
    const rewrite = estimate("rewrite");
    expect(rewrite.llmCalls).toEqual([base.llmCalls[0] + 1, base.llmCalls[1] + 10]);
    expect(rewrite.tokens[1]).toBeGreaterThan(judge.tokens[1]);
  });
});
