/**
 * Malformed JSON from a model (local models above all) is repaired before asking again: the
 * repaired value must pass the schema, else it is a re-ask as before; repairs and re-asks are
 * counted in the events.
 */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { instantClock } from "../../test/scripted/clocks.ts";
import { scriptedRegistry } from "../../test/scripted/harness.ts";
import { type ScriptStep, scriptedModel } from "../../test/scripted/scripted-model.ts";
import type { EventInput } from "../core/events.ts";
import { LlmClient } from "./client.ts";
import { isCutShort, repairedJsonValues } from "./json-extract.ts";
import { generateStructured, parseStructured } from "./structured.ts";

const schema = z.object({
  tasks: z.array(z.object({ goal: z.string(), done: z.boolean(), note: z.string().nullable() })).min(1),
});
const value = { tasks: [{ goal: "find the data\nfor 2024", done: true, note: null }] };

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

const of = (events: EventInput[], type: string) => events.filter((e) => e.type === type);

describe("malformed JSON is repaired before asking again", () => {
  it.each([
    ["a trailing comma", '{"tasks": [{"goal": "find the data\\nfor 2024", "done": true, "note": null,},],}'],
    ["single quotes", "{'tasks': [{'goal': 'find the data\\nfor 2024', 'done': true, 'note': null}]}"],
    ["Python literals", '{"tasks": [{"goal": "find the data\\nfor 2024", "done": True, "note": None}]}'],
    [
      "a raw newline in a string",
      '{"tasks": [{"goal": "find the data\nfor 2024", "done": true, "note": null}]}',
    ],
    [
      "a fence after prose, with a comment",
      'Here is the plan:\n```json\n{"tasks": [{"goal": "find the data\\nfor 2024", "done": true, "note": null}] // one task\n}\n```\nDone.',
    ],
  ])("%s: accepted in one call, a format-repair event, no re-ask", async (_name, text) => {
    const { client, model, events } = setup([text]);
    const result = await generateStructured(client, { role: "planner", schema, prompt: "plan it" });
    expect(result).toMatchObject({ value, calls: 1, formatErrors: 0, repaired: true, raw: text });
    expect(model.calls).toHaveLength(1);
    expect(of(events, "format-error")).toHaveLength(0);
    expect(of(events, "format-repair")).toEqual([
      expect.objectContaining({ role: "planner", attempt: 1, excerpt: text.slice(0, 300) }),
    ]);
    // A repaired answer is not a format error of its call.
    expect(of(events, "llm-end")).toEqual([expect.objectContaining({ formatErrors: 0 })]);
  });

  it("valid JSON is not a repair", async () => {
    const { client, events } = setup([JSON.stringify(value)]);
    const result = await generateStructured(client, { role: "planner", schema, prompt: "p" });
    expect(result.repaired).toBe(false);
    expect(of(events, "format-repair")).toHaveLength(0);
  });

  it("a repaired value that fails the schema is a re-ask with the schema's error", async () => {
    // Read leniently it lacks a required field.
    const { client, model, events } = setup([
      "{'tasks': [{'goal': 'find the data', 'note': None}]}",
      JSON.stringify(value),
    ]);
    const result = await generateStructured(client, { role: "planner", schema, prompt: "p" });
    expect(result).toMatchObject({ value, calls: 2, formatErrors: 1, repaired: false });
    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]!.lastUser).toContain("not valid JSON, and read leniently it does not match");
    expect(model.calls[1]!.lastUser).toContain("done");
    expect(of(events, "format-error")).toEqual([expect.objectContaining({ attempt: 1, reask: true })]);
    expect(of(events, "format-repair")).toHaveLength(0);
  });

  it.each([
    [
      "inside a string",
      '{"tasks": [{"goal": "find the data\\nfor 2024", "done": true, "note": "first the surv',
    ],
    ["between members", '{"tasks": [{"goal": "find the data\\nfor 2024", "done": true, "note": null}'],
    [
      "in a fence",
      '```json\n{"tasks": [{"goal": "find the data\\nfor 2024", "done": true, "note": null}, {"goal',
    ],
  ])("an answer cut short %s is never completed: a re-ask that says so", async (_name, text) => {
    const { client, model, events } = setup([text, JSON.stringify(value)]);
    const result = await generateStructured(client, { role: "planner", schema, prompt: "p" });
    expect(result).toMatchObject({ value, calls: 2, formatErrors: 1, repaired: false });
    expect(model.calls[1]!.lastUser).toContain("it was cut short");
    expect(of(events, "format-repair")).toHaveLength(0);
  });

  it("prose is never read as a value; the last rejected answer is not a re-ask", async () => {
    const { client, model, events } = setup(["I cannot plan this.", "Sorry, no.", "still no"]);
    await expect(generateStructured(client, { role: "planner", schema, prompt: "p" })).rejects.toMatchObject({
      code: "STRUCTURED_OUTPUT_FAILED",
    });
    expect(model.calls).toHaveLength(3);
    expect(of(events, "format-error").map((e) => (e.type === "format-error" ? e.reask : null))).toEqual([
      true,
      true,
      false,
    ]);
  });
});

describe("repairedJsonValues", () => {
  it("yields objects and arrays only, the fenced block first", () => {
    expect([...repairedJsonValues("just prose")]).toEqual([]);
    expect([...repairedJsonValues("```json\n{'a': 1,}\n```\nthen {'b': 2}")][0]).toEqual({ a: 1 });
    expect([...repairedJsonValues('Sure! {"a": 1,} hope it helps')]).toContainEqual({ a: 1 });
  });

  it("reads nothing from a text cut short", () => {
    expect([...repairedJsonValues('{"a": [1, 2')]).toEqual([]);
    expect([...repairedJsonValues("{'a': 'it is cut")]).toEqual([]);
    expect(isCutShort('{"a": "}"} trailing')).toBe(false);
    expect(isCutShort('{"a": {"b": 1}')).toBe(true);
  });

  it("skips bracketed prose before the value", () => {
    const values = [...repairedJsonValues("As noted in [E3], here: {'a': True}")];
    expect(values).toContainEqual({ a: true });
  });

  it("parseStructured prefers the valid JSON the answer holds", () => {
    expect(
      parseStructured('{"tasks": []} and {"tasks": [}', z.object({ tasks: z.array(z.number()) })),
    ).toEqual({
      ok: true,
      value: { tasks: [] },
      repaired: false,
    });
  });
});
