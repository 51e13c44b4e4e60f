import { describe, expect, it } from "vitest";
import { z } from "zod";
import { instantClock } from "../../test/scripted/clocks.ts";
import { scriptedRegistry } from "../../test/scripted/harness.ts";
import { type ScriptStep, scriptedModel } from "../../test/scripted/scripted-model.ts";
import { DossierError } from "../core/errors.ts";
import type { EventInput } from "../core/events.ts";
import { LlmClient } from "./client.ts";
import { createModelRegistry } from "./registry.ts";
import { generateStructured } from "./structured.ts";

const schema = z.object({ subtasks: z.array(z.object({ goal: z.string() })).min(1) });

function setup(steps: ScriptStep[]) {
  const model = scriptedModel(steps);
  const events: EventInput[] = [];
  const client = new LlmClient({
    registry: scriptedRegistry({ default: model }),
    clock: instantClock(),
    emit: (e) => events.push(e),
  });
  return { model, events, client };
}

const good = { subtasks: [{ goal: "find data" }] };

describe("generateStructured", () => {
  it.each([
    ["fenced JSON", `\`\`\`json\n${JSON.stringify(good)}\n\`\`\``],
    ["a <think> prefix", `<think>Let me plan {not json}</think>${JSON.stringify(good)}`],
    ["trailing prose", `${JSON.stringify(good)}\n\nI hope this plan helps.`],
  ])("accepts %s in one call", async (_name, text) => {
    const { client, model, events } = setup([text]);
    const result = await generateStructured(client, { role: "planner", schema, prompt: "plan it" });
    expect(result.value).toEqual(good);
    expect(result.calls).toBe(1);
    expect(model.calls).toHaveLength(1);
    expect(events.filter((e) => e.type === "format-error")).toHaveLength(0);
  });

  it("re-asks once with the validation error after one invalid answer", async () => {
    const { client, model, events } = setup(['{"subtasks": []}', { json: good }]);
    const result = await generateStructured(client, { role: "planner", schema, prompt: "plan it" });
    expect(result).toMatchObject({ value: good, calls: 2, formatErrors: 1 });
    expect(model.calls[1]!.lastUser).toContain("could not be used");
    expect(model.calls[1]!.lastUser).toContain("subtasks");
    expect(model.calls[1]!.prompt).toContain('{"subtasks": []}');
    const formatErrors = events.filter((e) => e.type === "format-error");
    expect(formatErrors).toHaveLength(1);
    expect(formatErrors[0]).toMatchObject({ attempt: 1, role: "planner" });
    const ends = events.filter((e) => e.type === "llm-end");
    expect(ends.map((e) => (e.type === "llm-end" ? e.formatErrors : -1))).toEqual([1, 0]);
  });

  it("gives up after exactly 1 + maxRepairs calls with a typed error", async () => {
    const { client, model, events } = setup(["nope", "still nope", "[1]", "no"]);
    const error = await generateStructured(client, {
      role: "planner",
      schema,
      prompt: "p",
      maxRepairs: 3,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(DossierError);
    expect(error.code).toBe("STRUCTURED_OUTPUT_FAILED");
    expect(error.details.calls).toBe(4);
    expect(model.calls).toHaveLength(4);
    expect(events.filter((e) => e.type === "format-error")).toHaveLength(4);
  });

  it("uses the default of 2 repairs (3 calls)", async () => {
    const { client, model } = setup(["a", "b", "c"]);
    await expect(generateStructured(client, { role: "planner", schema, prompt: "p" })).rejects.toMatchObject({
      code: "STRUCTURED_OUTPUT_FAILED",
    });
    expect(model.calls).toHaveLength(3);
  });

  it("puts the schema, as a compact type, in the system instructions", async () => {
    const { client, model } = setup([{ json: good }]);
    await generateStructured(client, { role: "planner", schema, system: "You plan research.", prompt: "p" });
    expect(model.calls[0]!.system).toContain("You plan research.");
    expect(model.calls[0]!.system).toContain("  // min 1 items\n  subtasks: Array<{\n    goal: string\n  }>");
    expect(model.calls[0]!.options.responseFormat).toMatchObject({ type: "json" });
  });

  it.each([
    ["openai", false],
    ["anthropic", false],
    ["google", false],
    ["openai-compatible", true],
    ["ollama", true],
  ])("in native mode, %s models read the schema in the prompt: %s", async (provider, inPrompt) => {
    const model = scriptedModel([{ json: good }]);
    const name = `${provider}:scripted`;
    const client = new LlmClient({
      registry: createModelRegistry({ defaultModel: name, models: { [name]: model.model } }),
      clock: instantClock(),
    });
    await generateStructured(client, { role: "planner", schema, system: "You plan research.", prompt: "p" });
    const call = model.calls[0]!;
    // The schema always travels as the response format; the prompt repeats it only where the
    // provider's schema mode does not show it to the model.
    expect(call.options.responseFormat).toMatchObject({ type: "json", schema: { type: "object" } });
    expect(call.system.includes("subtasks: Array<")).toBe(inPrompt);
    expect(call.system).toContain("JSON value");
  });
});
