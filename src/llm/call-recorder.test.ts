/**
 * Recorded model calls: the client hands every call to the recorder, which stores what the
 * model saw (messages shared with the previous call of the same agent and role only once) and
 * said (the raw completion, its format errors), with the agent's step; the training module
 * decodes the events back into full calls. Without a recorder the client behaves identically.
 */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { instantClock } from "../../test/scripted/clocks.ts";
import { scriptedRegistry } from "../../test/scripted/harness.ts";
import { type ScriptStep, scriptedModel } from "../../test/scripted/scripted-model.ts";
import type { EventInput } from "../core/events.ts";
import { recordedCallsFromEvents } from "../train/calls-from-events.ts";
import { fixtureEvents } from "../train/test-fixtures.ts";
import { CallRecorder } from "./call-recorder.ts";
import { type ChatMessage, LlmClient } from "./client.ts";
import { generateStructured } from "./structured.ts";

const schema = z.object({ answer: z.string() });

function setup(steps: ScriptStep[], options: { record?: boolean; seed?: number } = {}) {
  const model = scriptedModel(steps);
  const events: EventInput[] = [];
  let scope: string | undefined;
  const emit = (e: EventInput) => {
    events.push(scope ? ({ ...e, scope } as unknown as EventInput) : e);
  };
  const client = new LlmClient({
    registry: scriptedRegistry({ default: model }),
    clock: instantClock(),
    emit,
    ...(options.record === false ? {} : { recorder: new CallRecorder({ emit, scope: () => scope }) }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  });
  return {
    model,
    events,
    client,
    inScope: (s: string | undefined) => {
      scope = s;
    },
  };
}

const recorded = (events: EventInput[]) =>
  events.filter((e): e is Extract<EventInput, { type: "llm-call" }> => e.type === "llm-call");

describe("the call recorder", () => {
  it("records a structured re-ask as a repair of the same step, sharing the first call's messages", async () => {
    const { client, events, model } = setup(['{"answer": 3}', { json: { answer: "Paris" } }]);
    const result = await generateStructured(client, {
      role: "searcher",
      system: "You answer.",
      prompt: "Capital of France?",
      schema,
      temperature: 0.7,
      topP: 0.8,
      maxOutputTokens: 300,
    });
    expect(result.value).toEqual({ answer: "Paris" });
    const [first, second] = recorded(events);
    expect(first).toMatchObject({ callId: "L1", role: "searcher", step: 1, completion: '{"answer": 3}' });
    expect(first!.formatErrors).toHaveLength(1);
    expect(first!.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(first!.sampling).toEqual({ temperature: 0.7, topP: 0.8, maxOutputTokens: 300 });
    // The re-ask: same step, the two first messages by reference, the rejected answer by reference.
    expect(second).toMatchObject({ callId: "L2", step: 1, prefix: { callId: "L1", count: 2 } });
    expect(second!.messages[0]).toEqual({ role: "assistant", completionOf: "L1" });
    expect(second!.messages[1]!.content).toContain("could not be used");
    expect(second!.formatErrors).toEqual([]);

    // Decoded, each call holds exactly what the provider was sent.
    const calls = recordedCallsFromEvents(fixtureEvents(events));
    expect(calls).toHaveLength(2);
    for (const [i, call] of calls.entries()) {
      const sent = model.calls[i]!;
      expect(call.messages[0]).toEqual({ role: "system", content: sent.system });
      expect(call.messages.slice(1).map((m) => m.content)).toEqual(
        sent.options.prompt.filter((m) => m.role !== "system").map((m) => textOf(m.content)),
      );
    }
    expect(calls[1]!.messages[2]).toEqual({ role: "assistant", content: '{"answer": 3}' });
    expect(calls[0]!.usage.inputTokens).not.toBeNull();
  });

  it("counts steps per scope, stores only the new turns of a growing conversation, and sends the seed", async () => {
    const { client, events, model, inScope } = setup(["one", "two", "elsewhere", "three"], { seed: 42 });
    const conversation: ChatMessage[] = [{ role: "user", content: "task" }];
    const turn = async () => {
      const r = await client.generate({ role: "searcher", system: "agent", messages: [...conversation] });
      conversation.push({ role: "assistant", content: r.text }, { role: "user", content: `after ${r.text}` });
    };
    inScope("search:T-1");
    await turn();
    await turn();
    inScope("search:T-2");
    await client.generate({ role: "searcher", system: "agent", prompt: "other task" });
    inScope("search:T-1");
    await turn();
    const calls = recorded(events);
    expect(calls.map((c) => c.step)).toEqual([1, 2, 1, 3]);
    expect(calls[1]).toMatchObject({ prefix: { callId: "L1", count: 2 } });
    expect(calls[1]!.messages).toEqual([
      { role: "assistant", completionOf: "L1" },
      { role: "user", content: "after one" },
    ]);
    // The third T-1 call continues the second, not the T-2 call in between.
    expect(calls[3]).toMatchObject({ prefix: { callId: "L2", count: 4 } });
    expect(calls[2]!.prefix).toBeUndefined();
    expect(calls.every((c) => c.sampling.seed === 42)).toBe(true);
    expect(model.calls.every((c) => c.options.seed === 42)).toBe(true);
    // Stored once: the recorded messages hold each turn a single time.
    const stored = calls.flatMap((c) => c.messages).filter((m) => m.content !== undefined);
    expect(stored.map((m) => m.content)).toEqual([
      "agent",
      "task",
      "after one",
      "agent",
      "other task",
      "after two",
    ]);
    const decoded = recordedCallsFromEvents(fixtureEvents(events));
    expect(decoded[3]!.messages.map((m) => m.content)).toEqual([
      "agent",
      "task",
      "one",
      "after one",
      "two",
      "after two",
    ]);
    expect(decoded[3]!.scope).toBe("search:T-1");
  });

  it("records a failed call with its error and no completion", async () => {
    const { client, events } = setup([{ error: { status: 400, message: "bad request" } }]);
    await expect(client.generate({ role: "writer", prompt: "write" })).rejects.toThrow();
    const [call] = recorded(events);
    expect(call).toMatchObject({ completion: "", error: { code: "PROVIDER_ERROR" } });
  });

  it("changes nothing else: the same calls without a recorder give the same events, less llm-call", async () => {
    const steps = (): ScriptStep[] => ['{"answer": 3}', { json: { answer: "Paris" } }];
    const ask = (client: LlmClient) =>
      generateStructured(client, { role: "searcher", prompt: "Capital of France?", schema });
    const on = setup(steps());
    const off = setup(steps(), { record: false });
    expect(await ask(on.client)).toEqual(await ask(off.client));
    expect(on.events.filter((e) => e.type !== "llm-call")).toEqual(off.events);
    expect(recorded(off.events)).toHaveLength(0);
    expect(recorded(on.events)).toHaveLength(2);
    const sent = (calls: typeof on.model.calls) =>
      calls.map(({ options: { abortSignal: _signal, ...options } }) => options);
    expect(sent(on.model.calls)).toEqual(sent(off.model.calls));
  });
});

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return (content as { type: string; text?: string }[]).map((p) => p.text ?? "").join("");
}
