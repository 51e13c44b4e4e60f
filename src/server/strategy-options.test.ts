import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BUILTIN_STRATEGIES } from "../strategies/builtin.ts";
import { strategyOptions } from "./strategy-options.ts";

describe("strategy options for the form", () => {
  it("lists each option with its type, default, description and limits", () => {
    const byName = new Map(BUILTIN_STRATEGIES.map((s) => [s.name, strategyOptions(s.optionsSchema)]));
    expect(byName.get("graph")).toEqual([]);
    expect(byName.get("minddr")![0]).toEqual({
      name: "maxSteps",
      type: "integer",
      description: "model-driven steps per DeepSearch agent (bounded by the budget)",
      minimum: 0,
      maximum: 30,
    });
    expect(byName.get("minddr")!.map((o) => [o.name, o.default, o.enum])).toEqual([
      ["maxSteps", undefined, undefined],
      ["protocol", "json", ["json", "native"]],
      ["deepSearch", undefined, ["appended", "compact"]],
      ["report", undefined, ["single-pass", "sections"]],
      ["frame", undefined, ["alongside", "after"]],
      ["contextWindow", undefined, undefined],
    ]);
    expect(byName.get("warp")!.find((o) => o.name === "scorer")).toEqual({
      name: "scorer",
      type: "string",
      default: "rubric",
      description: expect.stringContaining("scorer of the drafts"),
      enum: ["rubric", "grounding"],
    });
    expect(byName.get("smtl")!.map((o) => [o.name, o.default])).toEqual([
      ["maxSteps", 100],
      ["refineEvery", 5],
      ["errorBudget", 10],
      ["contextTokens", undefined],
      ["contextWindow", undefined],
      ["topK", undefined],
      ["protocol", "json"],
      ["temperature", undefined],
      ["topP", undefined],
      ["systemPrompt", undefined],
      ["mode", "research"],
    ]);
  });

  it("lists an enum option (smtl's protocol) with its values, and an object option as JSON with what it allows", () => {
    const smtl = strategyOptions(BUILTIN_STRATEGIES.find((s) => s.name === "smtl")!.optionsSchema);
    expect(smtl.find((o) => o.name === "protocol")).toEqual({
      name: "protocol",
      type: "string",
      default: "json",
      description: expect.stringContaining("native: SMTL's own tags"),
      enum: ["json", "native"],
    });
    expect(smtl.find((o) => o.name === "systemPrompt")).toEqual({
      name: "systemPrompt",
      type: "json",
      description: expect.stringContaining("a file per role"),
      allowed: "a JSON object {searcher: text}",
    });
    // Every option of every built-in strategy is listed.
    for (const s of BUILTIN_STRATEGIES) {
      const shape = (s.optionsSchema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
      expect(
        strategyOptions(s.optionsSchema).map((o) => o.name),
        s.name,
      ).toEqual(Object.keys(shape));
    }
  });

  it("lists options a form cannot draw as widgets as JSON, with what they allow", () => {
    const schema = z.object({
      on: z.boolean().default(false),
      count: z.number().int().optional(),
      ratio: z.number().min(0).max(1).optional(),
      tags: z.array(z.string()).optional(),
      nested: z.object({ a: z.number() }).optional(),
      either: z.union([z.string(), z.number()]).optional(),
      level: z.union([z.literal(1), z.literal(2)]).optional(),
    });
    expect(strategyOptions(schema)).toEqual([
      { name: "on", type: "boolean", default: false },
      { name: "count", type: "integer" },
      { name: "ratio", type: "number", minimum: 0, maximum: 1 },
      { name: "tags", type: "json", allowed: "a JSON array (each text)" },
      { name: "nested", type: "json", allowed: "a JSON object {a: a number}" },
      { name: "either", type: "json", allowed: "text, or a number" },
      { name: "level", type: "json", allowed: "one of 1, 2" },
    ]);
    expect(strategyOptions(z.string())).toEqual([]);
  });
});
