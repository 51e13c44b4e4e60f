import { describe, expect, it } from "vitest";
import { instantClock } from "../../test/scripted/clocks.ts";
import { scriptedRegistry } from "../../test/scripted/harness.ts";
import { scriptedModel } from "../../test/scripted/scripted-model.ts";
import type { EventInput } from "../core/events.ts";
import { LlmClient } from "../llm/client.ts";
import type { ProviderLimiter } from "../tools/provider-limiter.ts";
import { limitModels } from "./limited-models.ts";

/** A limiter of one slot: a request waits until the one before it has released its slot. */
function oneSlot(): ProviderLimiter & { keys: string[] } {
  let free: Promise<void> = Promise.resolve();
  const keys: string[] = [];
  return {
    keys,
    async acquire(provider) {
      keys.push(provider);
      const before = free;
      let release!: () => void;
      free = new Promise((r) => {
        release = r;
      });
      await before;
      // The slot is taken a moment after it was asked for (a Redis round trip).
      await new Promise((r) => setTimeout(r, 5));
      return { release: async () => release() };
    },
    close: async () => {},
  };
}

describe("limitModels", () => {
  it("tells each model call the time its request waited for a slot of the provider's limiter (llm-end queueMs)", async () => {
    const events: EventInput[] = [];
    const limiter = oneSlot();
    const client = new LlmClient({
      registry: limitModels(scriptedRegistry({ default: scriptedModel(["one", "two"]) }), { limiter }),
      clock: instantClock(),
      emit: (e) => events.push(e),
    });
    await Promise.all([
      client.generate({ role: "writer", prompt: "a" }),
      client.generate({ role: "writer", prompt: "b" }),
    ]);
    expect(limiter.keys).toEqual(["model:openai-compatible", "model:openai-compatible"]);
    const ends = events.filter((e) => e.type === "llm-end");
    expect(ends).toHaveLength(2);
    // Both waited for a slot, each its own wait; a call outside the limiter records none.
    for (const e of ends) expect(e.type === "llm-end" && e.queueMs).toBeGreaterThan(0);
    const unlimited = new LlmClient({
      registry: scriptedRegistry({ default: scriptedModel(["three"]) }),
      clock: instantClock(),
      emit: (e) => events.push(e),
    });
    await unlimited.generate({ role: "writer", prompt: "c" });
    expect(events.findLast((e) => e.type === "llm-end")).not.toHaveProperty("queueMs");
  });
});
