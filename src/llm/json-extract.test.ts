import { describe, expect, it } from "vitest";
import { extractJson, fencedContent, firstJsonSpan, stripReasoning } from "./json-extract.ts";

describe("stripReasoning", () => {
  it("removes think blocks, unclosed openers and orphan closers", () => {
    expect(stripReasoning('<think>plan\nsteps</think>\n{"a":1}')).toBe('{"a":1}');
    expect(stripReasoning('{"a":1}<thinking>never closed')).toBe('{"a":1}');
    expect(stripReasoning('reasoning without opener</think>{"a":1}')).toBe('{"a":1}');
  });
});

describe("extractJson", () => {
  it("reads plain JSON", () => {
    expect(extractJson('{"x": [1, 2]}')).toEqual({ ok: true, value: { x: [1, 2] }, whole: true });
  });

  it("reads fenced JSON", () => {
    expect(extractJson('Here you go:\n```json\n{"x": 1}\n```\nThanks')).toEqual({
      ok: true,
      value: { x: 1 },
      whole: true,
    });
    expect(fencedContent("```\n[1]\n```")).toBe("[1]");
  });

  it("reads JSON after a think block and before trailing prose", () => {
    const raw =
      '<think>The user wants {"x"} maybe</think>Sure! {"x": "a } b", "y": {"z": [1]}} Hope this helps [E3].';
    expect(extractJson(raw)).toEqual({ ok: true, value: { x: "a } b", y: { z: [1] } }, whole: false });
  });

  it("skips bracketed prose that is not JSON", () => {
    expect(firstJsonSpan("see [E3] then [1, 2]")).toBe("[1, 2]");
    expect(extractJson("cites [E1] only")).toEqual({
      ok: false,
      error: "no JSON object or array found in the answer",
    });
  });

  it("reports an empty answer", () => {
    expect(extractJson("<think>only thoughts</think>")).toMatchObject({ ok: false });
  });
});
