import { describe, expect, it } from "vitest";
import { callFormatOk, recordedCallSchema } from "./recorded-call.ts";
import { fixtureCall } from "./test-fixtures.ts";

describe("recorded calls", () => {
  it("keeps messages with tool calls and tool results, tool definitions, sampling and the raw completion", () => {
    const call = fixtureCall({
      callId: "L3",
      step: 2,
      scope: "smtl",
      messages: [
        { role: "system", content: "You search." },
        { role: "user", content: "Which city?" },
        {
          role: "assistant",
          content: "",
          toolCalls: [{ id: "c1", name: "web_search", arguments: '{"query":"museum city"}' }],
        },
        { role: "tool", toolCallId: "c1", content: "The museum is in Turin." },
      ],
      tools: [{ name: "web_search", parameters: { type: "object" } }],
      sampling: { temperature: 0.7, topP: 0.95, maxOutputTokens: 512, seed: 3 },
      completion: '{"answer": "Turin"',
      formatErrors: ["Unexpected end of JSON input"],
    });
    expect(recordedCallSchema.parse(call)).toEqual(call);
    expect(callFormatOk(call)).toBe(false);
    expect(callFormatOk({ formatErrors: [] })).toBe(true);
  });

  it("refuses tool calls outside an assistant turn, a tool turn without its call id, and time running backwards", () => {
    const base = fixtureCall({ callId: "L1", step: 1 });
    const bad = [
      {
        ...base,
        messages: [{ role: "user", content: "x", toolCalls: [{ id: "c", name: "t", arguments: "{}" }] }],
      },
      { ...base, messages: [{ role: "tool", content: "result" }] },
      { ...base, messages: [{ role: "user", content: "x", toolCallId: "c" }] },
      { ...base, endedAt: "2025-12-31T00:00:00.000Z" },
      { ...base, step: 0 },
      { ...base, role: "oracle" },
      { ...base, sampling: { topP: 0 } },
    ];
    for (const value of bad)
      expect(recordedCallSchema.safeParse(value).success, JSON.stringify(value)).toBe(false);
  });

  it("has no place for credentials: unknown fields such as headers are stripped", () => {
    const parsed = recordedCallSchema.parse({
      ...fixtureCall({ callId: "L1", step: 1 }),
      headers: { authorization: "Bearer sk-secret" },
      apiKey: "sk-secret",
    });
    expect(JSON.stringify(parsed)).not.toContain("sk-secret");
  });
});
