import { describe, expect, it } from "vitest";
import { isDossierError } from "../core/errors.ts";
import type { EventInput } from "../core/events.ts";
import { recordedCallsFromEvents } from "./calls-from-events.ts";
import { recordedRunFromEvents } from "./run-from-events.ts";
import { fixtureEvents, fixtureRow } from "./test-fixtures.ts";

const end = (callId: string, inputTokens: number): EventInput => ({
  type: "llm-end",
  callId,
  role: "searcher",
  model: "m:p",
  key: callId,
  ok: true,
  replayed: false,
  inputTokens,
  outputTokens: 2,
  costUsd: null,
  latencyMs: 1,
  formatErrors: 0,
  retries: 0,
});

const call = (
  callId: string,
  fields: Partial<Extract<EventInput, { type: "llm-call" }>> = {},
): EventInput => ({
  type: "llm-call",
  callId,
  role: "searcher",
  model: "m:p",
  step: 1,
  messages: [{ role: "user", content: `asked in ${callId}` }],
  sampling: { temperature: 1 },
  completion: `answer of ${callId}`,
  formatErrors: [],
  replayed: false,
  startedAt: "2026-01-01T00:00:00.000Z",
  ...fields,
});

const start: EventInput = { type: "run-start", query: "q", strategy: "smtl", options: {} };
const finish: EventInput = { type: "run-end", status: "completed", stopReason: "completed" };

describe("recordedCallsFromEvents", () => {
  it("expands prefixes, completions and schemas, and joins each call's usage", () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    const calls = recordedCallsFromEvents(
      fixtureEvents([
        start,
        end("L1", 10),
        call("L1", { responseSchema: schema }),
        end("L2", 20),
        call("L2", {
          step: 2,
          prefix: { callId: "L1", count: 1 },
          messages: [
            { role: "assistant", completionOf: "L1" },
            { role: "user", content: "more" },
          ],
          schemaOf: "L1",
        }),
      ]),
    );
    expect(calls[1]!.messages).toEqual([
      { role: "user", content: "asked in L1" },
      { role: "assistant", content: "answer of L1" },
      { role: "user", content: "more" },
    ]);
    expect(calls[1]!.responseSchema).toEqual(schema);
    expect(calls.map((c) => c.usage.inputTokens)).toEqual([10, 20]);
  });

  it("reads only the last attempt of a resumed run (its journal replayed every call again)", () => {
    const resume: EventInput = {
      type: "run-resume",
      previousStatus: "interrupted",
      journaledSteps: 1,
      previousWallMs: 5,
    };
    const calls = recordedCallsFromEvents(
      fixtureEvents([
        start,
        call("L1", { completion: "first attempt" }),
        resume,
        call("L1", { completion: "replayed", replayed: true }),
        call("L2", { step: 2 }),
      ]),
    );
    expect(calls.map((c) => [c.callId, c.completion])).toEqual([
      ["L1", "replayed"],
      ["L2", "answer of L2"],
    ]);
  });

  it("refuses a reference to a call not recorded before", () => {
    try {
      recordedCallsFromEvents(fixtureEvents([start, call("L2", { prefix: { callId: "L1", count: 1 } })]));
      expect.unreachable();
    } catch (error) {
      expect(isDossierError(error, "INPUT_INVALID")).toBe(true);
      expect((error as Error).message).toContain("call L2 names the messages of call L1");
    }
  });

  it("is what recordedRunFromEvents reads when no calls are given", () => {
    const run = recordedRunFromEvents({
      row: fixtureRow(),
      events: fixtureEvents([start, end("L1", 3), call("L1"), finish]),
    });
    expect(run.calls.map((c) => c.callId)).toEqual(["L1"]);
    expect(
      recordedRunFromEvents({ row: fixtureRow(), events: fixtureEvents([start, finish]) }).calls,
    ).toEqual([]);
  });
});
