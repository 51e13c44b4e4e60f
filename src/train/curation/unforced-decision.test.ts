import { describe, expect, it } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import { fixtureCall } from "../test-fixtures.ts";
import { type UnforcedDecision, unforcedCall, unforcedOf, unforcedSystem } from "./unforced-decision.ts";

const unforced: UnforcedDecision = {
  protocol: "json",
  system: "Decide. Terminate when the draft is complete.",
  messages: [{ role: "user", content: "<draft>…</draft>\nExpansions left: 11." }],
  responseSchema: { type: "object", properties: { name: { enum: ["expand", "terminate"] } } },
  structured: {
    forcedSystem: "Decide. You must expand one section now.",
    forcedInstruction: 'Answer with JSON: {name: "expand"}',
    instruction: 'Answer with JSON: {name: "expand" | "terminate"}',
  },
  terminate: '{"name":"terminate"}',
};
const forcedWith = (system: string, schema = false) =>
  fixtureCall({
    callId: "L7",
    step: 3,
    role: "planner",
    scope: "planner",
    messages: [
      { role: "system", content: system },
      { role: "user", content: "<draft>…</draft>\nExpansions left: 2." },
    ],
    ...(schema ? { responseSchema: { type: "object" } } : {}),
    sampling: { temperature: 0.7, topP: 0.8, maxOutputTokens: 2000, seed: 5 },
  });

describe("the unforced decision request", () => {
  it("takes the unforced schema's instruction where structured output added the forced one's", () => {
    const forced = forcedWith(
      `${unforced.structured!.forcedSystem}\n\n${unforced.structured!.forcedInstruction}`,
    );
    expect(unforcedSystem(forced, unforced)).toBe(
      `${unforced.system}\n\n${unforced.structured!.instruction}`,
    );
  });

  it("carries over an addition that does not depend on the schema (a provider that shows it)", () => {
    const shown = "\n\nAnswer with one JSON value in the response format you were given.";
    const forced = forcedWith(`${unforced.structured!.forcedSystem}${shown}`, true);
    expect(unforcedSystem(forced, unforced)).toBe(`${unforced.system}${shown}`);
    // the call: the forced call's place and sampling, the unforced messages and schema, no usage
    const call = unforcedCall(forced, unforced, unforced.terminate, "L7:terminate");
    expect(call).toMatchObject({
      callId: "L7:terminate",
      role: "planner",
      scope: "planner",
      step: 3,
      sampling: forced.sampling,
      completion: '{"name":"terminate"}',
      formatErrors: [],
      responseSchema: unforced.responseSchema,
      usage: { inputTokens: null, outputTokens: null, costUsd: null },
    });
    expect(call.messages.map((m) => m.content)).toEqual([
      `${unforced.system}${shown}`,
      unforced.messages[0]!.content,
    ]);
    // without a schema on the forced call (prompt mode), none on the relabelled one
    expect(
      unforcedCall(forcedWith(forced.messages[0]!.content), unforced, "x", "y").responseSchema,
    ).toBeUndefined();
  });

  it("refuses a call that was not asked with the forced instructions, and reads only a valid record", () => {
    try {
      unforcedSystem(forcedWith("Some other agent."), unforced);
      expect.unreachable();
    } catch (error) {
      expect(isDossierError(error, "INPUT_INVALID")).toBe(true);
    }
    expect(unforcedOf({ unforced })).toEqual(unforced);
    expect(unforcedOf({ unforced: { protocol: "json" } })).toBeNull();
    expect(unforcedOf({ outline: {} })).toBeNull();
    expect(unforcedOf(null)).toBeNull();
    // the tag protocol has no system prompt to carry
    expect(
      unforcedSystem(forcedWith("x"), { protocol: "native", messages: unforced.messages, terminate: "nop" }),
    ).toBeNull();
  });
});
