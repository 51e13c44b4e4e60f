/**
 * minddr's options: the protocol sets the defaults (native: the paper's appended agent and
 * single-pass report; json: the compact agent and the section writer), explicit options win, a
 * bad value is refused with a clear error before any model call, and the estimate follows the
 * modes.
 */

import { afterEach, describe, expect, it } from "vitest";
import { type SmtlKit, startSmtlKit } from "../../../test/smtl/kit.ts";
import { estimateMinddr, minddrOptionsSchema } from "./definition.ts";
import { APPENDED_MAX_STEPS, COMPACT_MAX_STEPS, minddrSettings } from "./settings.ts";

let kit: SmtlKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const parse = (options: Record<string, unknown>) => minddrOptionsSchema.parse(options);

describe("minddr options", () => {
  it("native means the paper's settings as defaults; json keeps Dossier's; explicit options win", () => {
    expect(minddrSettings(parse({}))).toEqual({
      deepSearch: "compact",
      report: "sections",
      maxSteps: COMPACT_MAX_STEPS,
    });
    expect(minddrSettings(parse({ protocol: "native" }))).toEqual({
      deepSearch: "appended",
      report: "single-pass",
      maxSteps: APPENDED_MAX_STEPS,
    });
    expect(minddrSettings(parse({ protocol: "native", deepSearch: "compact", maxSteps: 4 }))).toEqual({
      deepSearch: "compact",
      report: "single-pass",
      maxSteps: 4,
    });
    expect(minddrSettings(parse({ report: "single-pass" }))).toMatchObject({
      deepSearch: "compact",
      report: "single-pass",
    });
    expect(minddrSettings(parse({ deepSearch: "appended" }))).toMatchObject({
      deepSearch: "appended",
      report: "sections",
      maxSteps: APPENDED_MAX_STEPS,
    });
  });

  it.each([
    [{ deepSearch: "tags" }, /deepSearch/],
    [{ report: "one-pass" }, /report/],
    [{ protocol: "xml" }, /protocol/],
    [{ contextWindow: 1000 }, /contextWindow/],
    [{ contextWindow: 64_000 }, /contextWindow.*applies to the appended DeepSearch agent only/],
    [{ sampling: { temperature: 1 } }, /sampling is not an option of the minddr strategy/],
    [{ protocol: "native", maxSteps: 0 }, /maxSteps 0 leaves the appended DeepSearch agent no step/],
    [{ frame: "before" }, /frame/],
    [{ protocol: "native", frame: "after" }, /frame applies to the sections report only/],
    [{ report: "single-pass", frame: "alongside" }, /frame applies to the sections report only/],
  ])("refuses %j before any model call", async (strategyOptions, message) => {
    kit = await startSmtlKit([]);
    const handle = kit.dossier.research("How were the stations built?", {
      strategy: "minddr",
      strategyOptions,
    });
    await expect(Promise.resolve(handle).then((h) => h.done)).rejects.toMatchObject({
      code: "INPUT_INVALID",
      message: expect.stringMatching(message),
    });
    expect(kit.model.calls).toHaveLength(0);
  });

  it("accepts where the sections report writes its frame, by default or with the native protocol's agent", () => {
    expect(parse({ frame: "after" }).frame).toBe("after");
    expect(parse({ protocol: "native", report: "sections", frame: "alongside" }).frame).toBe("alongside");
    expect(parse({}).frame).toBeUndefined();
  });

  it("accepts a context window for the appended agent, by option or by protocol", () => {
    expect(parse({ deepSearch: "appended", contextWindow: 64_000 }).contextWindow).toBe(64_000);
    expect(parse({ protocol: "native", contextWindow: 64_000 }).contextWindow).toBe(64_000);
  });
});

describe("minddr estimate", () => {
  const writerCalls = (options: Record<string, unknown>) =>
    estimateMinddr(parse(options), true)
      .llm.filter((c) => c.role === "writer")
      .map((c) => c.count);
  const searchStep = (options: Record<string, unknown>) =>
    estimateMinddr(parse(options), true).llm.filter((c) => c.role === "searcher")[0]!;

  it("counts one outline and one report call for the single pass, an outline, sections and an edit otherwise", () => {
    expect(writerCalls({ protocol: "native" })).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(writerCalls({})).toEqual([
      [1, 1],
      [4, 20],
      [1, 1],
    ]);
  });

  it("sizes an appended step by its growing trajectory, capped at the context; a compact step stays flat", () => {
    const compact = searchStep({});
    const short = searchStep({ protocol: "native", maxSteps: 4 });
    const long = searchStep({ protocol: "native" });
    // 8 agents × 30 steps at most; the mean prompt grows with the steps.
    expect(long.count).toEqual([3, 8 * APPENDED_MAX_STEPS]);
    expect(long.input).toBeGreaterThan(short.input);
    expect(short.input).toBeGreaterThan(compact.input);
    expect(searchStep({ protocol: "native", contextWindow: 8000 }).input).toBe(8000);
    expect(compact.count).toEqual([3, 8 * COMPACT_MAX_STEPS]);
    // An appended agent runs no seed searches: its minimum is one action per agent.
    expect(estimateMinddr(parse({ protocol: "native" }), true).tools[0]).toBe(3);
    expect(estimateMinddr(parse({}), true).tools[0]).toBe(6);
  });
});
