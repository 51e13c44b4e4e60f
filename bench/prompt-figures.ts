/**
 * What the model was sent, per role, for the orchestration benchmark: every request the
 * scripted model answers is recorded with its role, and the figures are the input tokens per
 * role (counted as the fake server bills them: a token per four characters of message text)
 * and the share of input tokens a provider's prompt cache could serve — the longest prefix a
 * request shares with an earlier request of the same role (system prompt, schema and any stable
 * leading context). "Cacheable" counts only prefixes of at least {@link MIN_CACHED_PREFIX}
 * tokens, the smallest prefix Anthropic and OpenAI cache.
 */

import { countPromptTokens } from "../test/fake-openai/chat-completions.ts";
import type { ChatBody } from "../test/research/model-script.ts";
import { contentText } from "../test/research/replies.ts";

/** Smallest prefix (tokens) providers cache (Anthropic's Sonnet/Opus minimum, OpenAI's automatic caching). */
export const MIN_CACHED_PREFIX = 1024;

/** One request as sent. */
export interface SentCall {
  role: string;
  /** The request's messages in order (system first), each as `\0role\0text`. */
  text: string;
  /** Input tokens as the fake server bills them. */
  inputTokens: number;
}

/** Prompt figures of one run. */
export interface PromptFigures {
  inputTokens: number;
  /** Input tokens by role. */
  byRole: Record<string, { calls: number; inputTokens: number; sharedPrefix: number }>;
  /** Tokens in prefixes shared with an earlier call of the same role. */
  sharedPrefix: number;
  /** The same, counting only prefixes of at least {@link MIN_CACHED_PREFIX} tokens. */
  cacheable: number;
}

/** A recorder to pass as the script's `override` (it never changes an answer). */
export function recordCalls(): {
  calls: SentCall[];
  override: (role: string, body: ChatBody) => undefined;
} {
  const calls: SentCall[] = [];
  return {
    calls,
    override: (role, body) => {
      const text = body.messages.map((m) => `\u0000${m.role}\u0000${contentText(m.content)}`).join("");
      calls.push({ role, text, inputTokens: countPromptTokens(body) });
      return undefined;
    },
  };
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Characters of message text (separators not counted) in the first `chars` characters. */
function textChars(text: string, chars: number): number {
  let separators = 0;
  let inSeparator = false;
  for (let i = 0; i < chars; i++) {
    if (text.charCodeAt(i) === 0) {
      separators++;
      inSeparator = !inSeparator;
    } else if (inSeparator) separators++;
  }
  return chars - separators;
}

/** The figures of a run's recorded calls. */
export function promptFigures(calls: readonly SentCall[]): PromptFigures {
  const byRole: PromptFigures["byRole"] = {};
  let shared = 0;
  let cacheable = 0;
  let input = 0;
  calls.forEach((c, i) => {
    let best = 0;
    for (let j = 0; j < i; j++)
      if (calls[j]!.role === c.role) best = Math.max(best, commonPrefix(calls[j]!.text, c.text));
    const tokens = Math.min(c.inputTokens, Math.floor(textChars(c.text, best) / 4));
    const r = byRole[c.role] ?? { calls: 0, inputTokens: 0, sharedPrefix: 0 };
    byRole[c.role] = r;
    r.calls++;
    r.inputTokens += c.inputTokens;
    r.sharedPrefix += tokens;
    input += c.inputTokens;
    shared += tokens;
    if (tokens >= MIN_CACHED_PREFIX) cacheable += tokens;
  });
  return { inputTokens: input, byRole, sharedPrefix: shared, cacheable };
}
