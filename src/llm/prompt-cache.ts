/**
 * Prompt caching. Prompts put what stays the same first — instructions and schema, then the
 * part of the prompt other calls of the same role repeat (the question, the outline, the task's
 * requirements) — and the variable part last. OpenAI and Google cache a repeated prefix by
 * themselves; Anthropic caches only up to explicit breakpoints, so for Anthropic models the
 * instructions and the shared part of the first user message each end with a cache-control
 * breakpoint (AI SDK `providerOptions.anthropic.cacheControl`). Anthropic caches a prefix only
 * from about a thousand tokens on; shorter ones are sent as usual.
 */

import type { ModelMessage, SystemModelMessage } from "ai";
import type { ProviderName } from "./model-spec.ts";

/** A chat message as the client builds it. */
export interface PlainMessage {
  role: "user" | "assistant";
  content: string;
}

const EPHEMERAL = { anthropic: { cacheControl: { type: "ephemeral" as const } } };

/** Whether a provider needs explicit breakpoints to cache a prompt prefix. */
export function needsBreakpoints(provider: ProviderName): boolean {
  return provider === "anthropic";
}

/**
 * The instructions and messages as the AI SDK takes them. For a provider that needs
 * breakpoints, and when the caller named a shared prefix (`sharedPrefix`, possibly empty: the
 * instructions alone are shared), the instructions end with a breakpoint, and so does
 * `sharedPrefix` when it is a non-empty prefix of the first user message (which is then sent as
 * two text parts). Otherwise the prompt goes as it is.
 */
export function promptWithCache(
  provider: ProviderName,
  system: string | undefined,
  messages: readonly PlainMessage[],
  sharedPrefix?: string,
): { instructions?: string | SystemModelMessage; messages: ModelMessage[] } {
  const plain = messages.map((m) => ({ role: m.role, content: m.content }) as ModelMessage);
  if (sharedPrefix === undefined || !needsBreakpoints(provider))
    return { ...(system ? { instructions: system } : {}), messages: plain };
  const instructions = system
    ? ({ role: "system", content: system, providerOptions: EPHEMERAL } satisfies SystemModelMessage)
    : undefined;
  const first = messages.findIndex((m) => m.role === "user");
  const head = first >= 0 ? messages[first]! : undefined;
  if (
    head &&
    sharedPrefix.length > 0 &&
    head.content.length > sharedPrefix.length &&
    head.content.startsWith(sharedPrefix)
  ) {
    plain[first] = {
      role: "user",
      content: [
        { type: "text", text: sharedPrefix, providerOptions: EPHEMERAL },
        { type: "text", text: head.content.slice(sharedPrefix.length) },
      ],
    };
  }
  return { ...(instructions ? { instructions } : {}), messages: plain };
}
