import { describe, expect, it } from "vitest";
import type { StrategyOption } from "./api.ts";
import { optionHint, optionLabel, optionValues } from "./strategy-options.ts";

const OPTIONS: StrategyOption[] = [
  { name: "maxTurns", type: "integer", default: 10, description: "turns at most", minimum: 1, maximum: 50 },
  { name: "ratio", type: "number", minimum: 0 },
  { name: "scorer", type: "string", default: "rubric", enum: ["rubric", "grounding"] },
  { name: "verbose", type: "boolean" },
  { name: "note", type: "string" },
];

describe("strategy options in the form", () => {
  it("labels each option and hints at its meaning, limits and default", () => {
    expect(optionLabel("maxTurns")).toBe("Max turns");
    expect(optionLabel("topK")).toBe("Top k");
    expect(optionLabel("read_pages")).toBe("Read pages");
    expect(optionHint(OPTIONS[0]!)).toBe("turns at most; 1–50; default 10");
    expect(optionHint(OPTIONS[1]!)).toBe("at least 0");
    expect(optionHint({ name: "x", type: "integer", maximum: 3 })).toBe("at most 3");
  });

  it("turns the fields' text into typed options, leaving empty fields to the defaults", () => {
    expect(optionValues(OPTIONS, {})).toEqual({ values: {}, problems: [] });
    expect(
      optionValues(OPTIONS, {
        maxTurns: " 12 ",
        ratio: "0.5",
        scorer: "grounding",
        verbose: "false",
        note: "hi",
      }),
    ).toEqual({
      values: { maxTurns: 12, ratio: 0.5, scorer: "grounding", verbose: false, note: "hi" },
      problems: [],
    });
  });

  it("takes a json option (an object no widget can draw) as JSON text and hints at what it allows", () => {
    const prompt: StrategyOption = {
      name: "systemPrompt",
      type: "json",
      description: "a file per role",
      allowed: "a JSON object {searcher: text}",
    };
    expect(optionHint(prompt)).toBe("a file per role; JSON: a JSON object {searcher: text}");
    expect(optionValues([prompt], { systemPrompt: ' {"searcher": "prompts/s.txt"} ' })).toEqual({
      values: { systemPrompt: { searcher: "prompts/s.txt" } },
      problems: [],
    });
    // Text that is not JSON is named here; JSON the schema refuses is refused by the server.
    expect(optionValues([prompt], { systemPrompt: "prompts/s.txt" })).toEqual({
      values: {},
      problems: ["System prompt: expected JSON (a JSON object {searcher: text})"],
    });
    expect(optionValues([prompt], { systemPrompt: "" })).toEqual({ values: {}, problems: [] });
  });

  it("names each field whose text is not a valid value", () => {
    const { values, problems } = optionValues(OPTIONS, {
      maxTurns: "2.5",
      ratio: "-1",
      scorer: "other",
      verbose: "maybe",
      unknown: "7",
    });
    expect(values).toEqual({});
    expect(problems).toEqual([
      "Max turns: expected a whole number",
      "Ratio: expected at least 0",
      "Scorer: expected one of rubric, grounding",
      "Verbose: expected yes or no",
    ]);
    expect(optionValues(OPTIONS, { maxTurns: "99" }).problems).toEqual(["Max turns: expected 1–50"]);
  });
});
