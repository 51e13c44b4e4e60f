import { describe, expect, it } from "vitest";
import { z } from "zod";
import { optionFlagValues, refuseTwice } from "./strategy-option-flags.ts";
import { rolloutFlagOptions } from "./train-rollouts.ts";

const SCHEMA = z.strictObject({
  protocol: z.enum(["json", "native"]).default("json"),
  label: z.string().optional(),
  maxSteps: z.number().int().min(1).optional(),
  verbose: z.boolean().optional(),
  systemPrompt: z.object({ searcher: z.string() }).optional(),
  tags: z.array(z.string()).optional(),
});

describe("--option key=value", () => {
  it("reads a value as JSON when it parses, else as text; a text option's value stays text", () => {
    expect(
      optionFlagValues(
        [
          "protocol=native",
          "maxSteps=12",
          "verbose=true",
          'systemPrompt={"searcher":"prompts/searcher.txt"}',
          'tags=["a","b"]',
          "label=42",
          "note=a=b",
        ],
        SCHEMA,
      ),
    ).toEqual({
      protocol: "native",
      maxSteps: 12,
      verbose: true,
      systemPrompt: { searcher: "prompts/searcher.txt" },
      tags: ["a", "b"],
      // The schema types label as text: "42" is not turned into a number.
      label: "42",
      note: "a=b",
    });
    // Without the schema every value that parses as JSON is JSON.
    expect(optionFlagValues(["label=42", "maxSteps=abc"])).toEqual({ label: 42, maxSteps: "abc" });
  });

  it("refuses a pair without a key, and a key given twice", () => {
    expect(() => optionFlagValues(["protocol"])).toThrow('--option takes key=value, got "protocol"');
    expect(() => optionFlagValues(["=native"])).toThrow('--option takes key=value, got "=native"');
    expect(() => optionFlagValues(["mode=answer", "mode=research"])).toThrow(
      "--option mode is given more than once",
    );
  });

  it("refuses an option set both by its own flag and by --option", () => {
    expect(() => refuseTwice([["--mode", "mode", "answer"]], { mode: "research" })).toThrow(
      "--mode and --option mode=… both set the strategy option mode: give one",
    );
    expect(() => refuseTwice([["--mode", "mode", undefined]], { mode: "research" })).not.toThrow();
    expect(() => refuseTwice([["--mode", "mode", "answer"]], { protocol: "native" })).not.toThrow();
  });

  it("is the parser of train rollouts too", () => {
    const base = { group: "2", rows: "rows", seed: "0" };
    expect(
      rolloutFlagOptions({ ...base, option: ["protocol=native", "topK=20"], temperature: "0.5" }),
    ).toEqual({ protocol: "native", topK: 20, temperature: 0.5 });
    expect(() => rolloutFlagOptions({ ...base, option: ["topP=0.5"], topP: "0.9" })).toThrow(
      "--top-p and --option topP=… both set the strategy option topP: give one",
    );
  });
});
