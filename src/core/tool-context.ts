/**
 * Which tool call the running code serves, if any: a tool's own work — the page fetch inside a
 * `crawl_page`, the reader model's summary of the page — runs inside its tool call, so events
 * can say it is the engine's work for that call, not a step of the agent.
 */

import { AsyncLocalStorage } from "node:async_hooks";

const current = new AsyncLocalStorage<string>();

/** Runs `fn` as the work of tool call `callId`. */
export function withinToolCall<T>(callId: string, fn: () => T): T {
  return current.run(callId, fn);
}

/** The tool call the running code serves, or undefined at the agent's own level. */
export function currentToolCall(): string | undefined {
  return current.getStore();
}
