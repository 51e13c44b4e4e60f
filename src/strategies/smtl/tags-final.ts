/**
 * The answer (or report) from the conversation when the tag protocol's loop ended without one:
 * the model is asked with the mode's request (its oldest turns dropped to fit) and answers
 * within `<answer>`; the raw reply when it has no tag; null (with an `ANSWER_FALLBACK` warning)
 * when the call failed.
 */

import { failureOf } from "../../kit/protocol/sample.ts";
import { estimateTokens } from "../../llm/token-estimate.ts";
import { fitConversation } from "./answer.ts";
import { NATIVE_MAX_OUTPUT_TOKENS, tagContent } from "./native-format.ts";
import type { SmtlState } from "./state.ts";
import { tagSampling } from "./tags.ts";

/** Asks for the final `<answer>` over the conversation. */
export async function finalFromConversation(
  s: SmtlState,
  input: { system: string; request: string },
): Promise<string | null> {
  const { ctx } = s;
  const { messages, last } = fitConversation(
    s.talk.turns,
    s.windows.contextTokens - estimateTokens(input.system) - NATIVE_MAX_OUTPUT_TOKENS,
    input.request,
  );
  try {
    const r = await ctx.generate({
      role: "searcher",
      system: input.system,
      messages: [
        ...messages,
        { role: "user", content: last ? `${last}\n\n${input.request}` : input.request },
      ],
      ...tagSampling(s),
      maxOutputTokens: NATIVE_MAX_OUTPUT_TOKENS,
    });
    return tagContent(r.text, "answer") ?? (r.text.trim() || null);
  } catch (error) {
    ctx.emit({
      type: "warning",
      code: "ANSWER_FALLBACK",
      message: `the answer from the conversation failed (${failureOf(ctx, error)}); no answer`,
    });
    return null;
  }
}
