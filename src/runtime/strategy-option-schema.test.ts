import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BUILTIN_STRATEGIES } from "../strategies/builtin.ts";
import type { StrategyDefinition } from "../strategies/types.ts";
import { parseStrategyOptions } from "./research-checks.ts";
import type { ParsedResearchRequest } from "./research-request.ts";
import { allowedValues, optionProperties, takesText } from "./strategy-option-schema.ts";

const strategy = (name: string) =>
  BUILTIN_STRATEGIES.find((s) => s.name === name) as unknown as StrategyDefinition<unknown>;
const request = (strategyOptions: Record<string, unknown>, maxSteps?: number) =>
  ({ strategyOptions, ...(maxSteps === undefined ? {} : { maxSteps }) }) as ParsedResearchRequest;
const refusal = (name: string, options: Record<string, unknown>, maxSteps?: number) => {
  try {
    parseStrategyOptions(strategy(name), request(options, maxSteps));
  } catch (e) {
    return e as Error & { code: string };
  }
  throw new Error("accepted");
};

describe("what a strategy's options allow", () => {
  it("says it in words for every kind of option", () => {
    const p = optionProperties(
      z.object({
        n: z.number().int().min(1).max(9),
        low: z.number().min(0),
        p: z.number().gt(0).max(1),
        on: z.boolean(),
        pick: z.enum(["a", "b"]),
        text: z.string(),
        list: z.array(z.number().int()),
        files: z.object({ searcher: z.string(), writer: z.string().optional() }),
        either: z.union([z.string(), z.number()]),
      }),
    );
    expect(Object.fromEntries(Object.entries(p).map(([k, v]) => [k, allowedValues(v)]))).toEqual({
      n: "an integer from 1 to 9",
      low: "a number ≥ 0",
      p: "a number > 0 and ≤ 1",
      on: "true or false",
      pick: "one of a, b",
      text: "text",
      list: "a JSON array (each an integer)",
      files: "a JSON object {searcher: text; writer?: text}",
      either: "text, or a number",
    });
    expect(takesText(p.pick)).toBe(true);
    expect(takesText(p.text)).toBe(true);
    expect(takesText(p.n)).toBe(false);
    expect(takesText(p.either)).toBe(false);
    expect(optionProperties(z.string())).toEqual({});
  });

  it("a refused option names the strategy, the option and what is allowed", () => {
    const unknown = refusal("smtl", { nosuch: 1 });
    expect(unknown.code).toBe("INPUT_INVALID");
    expect(unknown.message).toMatch(
      /^strategy smtl: nosuch is not an option of the smtl strategy; its options are maxSteps, .*protocol.*, mode \(see dossier strategies\)$/,
    );
    expect(refusal("smtl", { maxSteps: "abc" }).message).toBe(
      'strategy smtl: option maxSteps must be an integer from 1 to 1000, got "abc"',
    );
    expect(refusal("smtl", { protocol: "xml" }).message).toBe(
      'strategy smtl: option protocol must be one of json, native, got "xml"',
    );
    expect(refusal("smtl", { systemPrompt: { searcher: 3 } }).message).toMatch(
      /^strategy smtl: option systemPrompt must be a JSON object \{searcher: text\}, got \{"searcher":3\} \(systemPrompt\.searcher: /,
    );
    expect(refusal("graph", {}, 3).message).toBe(
      "strategy graph: maxSteps is not an option of the graph strategy, which has none",
    );
    expect(parseStrategyOptions(strategy("smtl"), request({ protocol: "native" }))).toMatchObject({
      protocol: "native",
      mode: "research",
    });
  });
});
