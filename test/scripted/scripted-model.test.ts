import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { scriptedModel } from "./scripted-model.ts";

describe("scriptedModel", () => {
  it("answers steps in order, records calls and reports usage", async () => {
    const m = scriptedModel(["one", { text: "two", usage: { input: 5, output: 2 } }]);
    const a = await generateText({ model: m.model, prompt: "first" });
    const b = await generateText({ model: m.model, instructions: "sys", prompt: "second" });
    expect([a.text, b.text]).toEqual(["one", "two"]);
    expect(b.usage.inputTokens).toBe(5);
    expect(m.calls.map((c) => c.lastUser)).toEqual(["first", "second"]);
    expect(m.calls[1]!.system).toBe("sys");
  });

  it("routes steps with a matcher to the call whose prompt matches", async () => {
    const m = scriptedModel([
      { match: "beta", reply: "for beta" },
      { match: /alpha/, reply: (call) => `for alpha #${call.index}` },
    ]);
    const [a, b] = await Promise.all([
      generateText({ model: m.model, prompt: "about alpha" }),
      generateText({ model: m.model, prompt: "about beta" }),
    ]);
    expect(a.text).toBe("for alpha #0");
    expect(b.text).toBe("for beta");
  });

  it("streams a scripted answer", async () => {
    const m = scriptedModel(["a streamed answer that is longer than one chunk"]);
    const result = streamText({ model: m.model, prompt: "x" });
    expect(await result.text).toBe("a streamed answer that is longer than one chunk");
  });

  it("reports unknown usage as undefined when the step says null", async () => {
    const m = scriptedModel([{ text: "x", usage: null }]);
    const r = await generateText({ model: m.model, prompt: "x" });
    expect(r.usage.inputTokens).toBeUndefined();
  });

  it("throws an APICallError for an error step", async () => {
    const m = scriptedModel([{ error: { status: 429, headers: { "retry-after": "1" } } }]);
    await expect(generateText({ model: m.model, prompt: "x", maxRetries: 0 })).rejects.toMatchObject({
      statusCode: 429,
    });
  });

  it("assertDone reports unused steps and unexpected calls", async () => {
    const unused = scriptedModel(["a", "b"], { checkAtEnd: false });
    await generateText({ model: unused.model, prompt: "x" });
    expect(() => unused.assertDone()).toThrow("1 scripted step(s) never used");
    const extra = scriptedModel([], { checkAtEnd: false });
    await expect(generateText({ model: extra.model, prompt: "x", maxRetries: 0 })).rejects.toThrow(
      /unexpected call/,
    );
    expect(() => extra.assertDone()).toThrow("1 unexpected call(s)");
  });

  it.fails("fails the test when a scripted step is left unused", () => {
    scriptedModel(["never used"]);
  });

  it.fails("fails the test on an extra call even when the caller swallows the error", async () => {
    const m = scriptedModel([]);
    await generateText({ model: m.model, prompt: "x", maxRetries: 0 }).catch(() => undefined);
  });
});
