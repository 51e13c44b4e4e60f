/**
 * Cache breakpoints on the wire: an Anthropic model (its base URL redirected to a loopback server
 * that answers like the Messages API) gets `cache_control` after the instructions and after the
 * shared prefix of the prompt; an OpenAI-compatible model gets the prompt unchanged.
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../test/fake-openai/index.ts";
import { LlmClient } from "./client.ts";
import { promptWithCache } from "./prompt-cache.ts";
import { createModelRegistry } from "./registry.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A loopback server answering Anthropic Messages requests with "ok"; it keeps the bodies. */
async function fakeAnthropic(): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", () => {
      bodies.push(JSON.parse(raw));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [{ type: "text", text: "ok" }],
          stop_reason: "end_turn",
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  closers.push(() => new Promise((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies };
}

const system = "You write one section.";
const shared = "Research question: Q\nOutline: 1 A; 2 B\n\n";
const prompt = `${shared}Write section 2.`;

describe("prompt cache breakpoints", () => {
  it("an Anthropic request carries cache_control after the instructions and after the shared prefix", async () => {
    const api = await fakeAnthropic();
    const registry = createModelRegistry({
      defaultModel: "anthropic:claude-sonnet-4-5",
      baseUrl: api.url,
      apiKey: "sk-ant-local",
    });
    const client = new LlmClient({ registry });
    const result = await client.generate({ role: "writer", system, prompt, sharedPrefix: shared });
    expect(result.text).toBe("ok");
    const body = api.bodies[0] as { system: unknown; messages: { role: string; content: unknown }[] };
    expect(body.system).toEqual([{ type: "text", text: system, cache_control: { type: "ephemeral" } }]);
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: shared, cache_control: { type: "ephemeral" } },
          { type: "text", text: "Write section 2." },
        ],
      },
    ]);
  });

  it("without a shared prefix, an Anthropic request has no breakpoint", async () => {
    const api = await fakeAnthropic();
    const registry = createModelRegistry({
      defaultModel: "anthropic:claude-sonnet-4-5",
      baseUrl: api.url,
      apiKey: "sk-ant-local",
    });
    await new LlmClient({ registry }).generate({ role: "writer", system, prompt });
    expect(JSON.stringify(api.bodies[0])).not.toContain("cache_control");
  });

  it("an OpenAI-compatible request is sent unchanged (such providers cache identical prefixes themselves)", async () => {
    const server: FakeOpenAI = await startFakeOpenAI();
    closers.push(() => server.close());
    server.enqueue({ kind: "text", text: "ok" });
    const registry = createModelRegistry({
      defaultModel: "openai-compatible:test-model",
      baseUrl: server.url,
      apiKey: "sk-local",
    });
    await new LlmClient({ registry }).generate({ role: "writer", system, prompt, sharedPrefix: shared });
    expect((server.requests[0]!.body as { messages: unknown }).messages).toEqual([
      { role: "system", content: system },
      { role: "user", content: prompt },
    ]);
  });

  it("leaves the first message whole when the prefix is not its start", () => {
    const built = promptWithCache("anthropic", system, [{ role: "user", content: "other" }], shared);
    expect(built.messages).toEqual([{ role: "user", content: "other" }]);
    expect(built.instructions).toMatchObject({ role: "system", content: system });
  });
});
