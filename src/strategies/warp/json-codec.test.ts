/**
 * The request every action of warp's JSON protocol sends: its instructions as the system prompt,
 * one user message, the role's sampling with the lower of the stated and the action's output cap;
 * and a codec of it, whose every valid value is the action.
 */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { jsonRequest, warpJsonCodec } from "./json-codec.ts";

describe("the JSON protocol's request", () => {
  const ask = {
    role: "writer" as const,
    schema: z.object({ text: z.string() }),
    system: "Write.",
    prompt: "The section.",
    maxOutputTokens: 3000,
  };

  it("is the instructions, one user message and the role's sampling, its cap the lower of the stated and the action's", () => {
    expect(jsonRequest(ask, { writer: { temperature: 0.2, topP: 0.5, maxOutputTokens: 2048 } })).toEqual({
      role: "writer",
      schema: ask.schema,
      system: "Write.",
      messages: [{ role: "user", content: "The section." }],
      temperature: 0.2,
      topP: 0.5,
      maxOutputTokens: 2048,
    });
    // A role with no stated sampling: the provider's defaults, the action's own cap.
    expect(jsonRequest(ask, {})).toEqual({
      role: "writer",
      schema: ask.schema,
      system: "Write.",
      messages: [{ role: "user", content: "The section." }],
      maxOutputTokens: 3000,
    });
  });

  it("a codec of it decodes every valid value into its action", () => {
    const codec = warpJsonCodec(
      () => jsonRequest(ask, {}),
      (value: { text: string }, state: number) => `${state}:${value.text}`,
    );
    expect(codec.kind).toBe("json");
    expect(codec.name).toBe("warp-json");
    expect(codec.decode({ text: "x" }, 2)).toEqual({ ok: true, action: "2:x" });
  });
});
