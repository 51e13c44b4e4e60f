/**
 * The fake server as a vLLM or SGLang server asked for token ids and log-probs: a chat
 * completion carries the ids of its prompt (the request's messages through the fake's chat
 * template and tokenizer) and of its completion (the reply's text, then the stop token when it
 * stopped), and one deterministic log-prob per completion token, in the extension fields each
 * server documents:
 *
 * - `vllm` (0.10.2 and later): with `return_token_ids`, the response's `prompt_token_ids` and the
 *   choice's `token_ids`; with `return_tokens_as_token_ids`, log-prob tokens `token_id:<id>`;
 * - `vllm-legacy` (before `return_token_ids`): no ids, only the log-prob tokens `token_id:<id>`;
 * - `sglang`: with `return_prompt_token_ids` and `return_token_ids`, the choice's
 *   `prompt_token_ids` and `token_ids`.
 *
 * With `logprobs: true` the choice's `logprobs.content` lists one `{token, logprob, bytes,
 * top_logprobs}` per completion token (OpenAI's form).
 */

/** A chat message as the request sent it. */
export interface WireMessage {
  role: string;
  content: string;
}

/** The tokenization of the fake's "checkpoint". */
export interface FakeTokenizer {
  /** The prompt text of the messages: the chat template, ending with the generation prompt. */
  render(messages: readonly WireMessage[]): string;
  encode(text: string): number[];
  /** The stop token, appended to a completion that stopped (finish reason `stop`). */
  eosId: number;
}

/** Token ids in the answers (see the module comment). */
export interface FakeTokens {
  tokenizer: FakeTokenizer;
  /** Whose extension fields to answer with; default `vllm`. */
  flavor?: "vllm" | "vllm-legacy" | "sglang";
}

/** The deterministic log-prob of the `index`-th completion token `id`: in [−1, −0.001]. */
export function fakeLogprob(id: number, index: number): number {
  return -(((id * 7919 + index * 104_729) % 1000) + 1) / 1000;
}

const flag = (body: Record<string, unknown>, name: string) => body[name] === true;

/** The messages of a chat-completions body, their content as text. */
function wireMessages(body: Record<string, unknown>): WireMessage[] {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return messages.map((m: { role?: unknown; content?: unknown }) => ({
    role: String(m.role),
    content:
      typeof m.content === "string"
        ? m.content
        : Array.isArray(m.content)
          ? m.content.map((p: { text?: unknown }) => (typeof p.text === "string" ? p.text : "")).join("")
          : "",
  }));
}

/**
 * `completion` (a whole `chat.completion` object of a text reply) with the ids and log-probs the
 * request asked for.
 */
export function withTokenIds(
  completion: Record<string, unknown>,
  requestBody: unknown,
  reply: { text: string; finishReason?: string },
  tokens: FakeTokens,
): Record<string, unknown> {
  const body = (requestBody ?? {}) as Record<string, unknown>;
  const { tokenizer } = tokens;
  const flavor = tokens.flavor ?? "vllm";
  const promptIds = tokenizer.encode(tokenizer.render(wireMessages(body)));
  const completionIds = [
    ...tokenizer.encode(reply.text),
    ...((reply.finishReason ?? "stop") === "stop" ? [tokenizer.eosId] : []),
  ];
  const asIds = flavor !== "sglang" && flag(body, "return_tokens_as_token_ids");
  const choice = { ...(completion.choices as Record<string, unknown>[])[0] } as Record<string, unknown>;
  if (flag(body, "logprobs"))
    choice.logprobs = {
      content: completionIds.map((id, i) => ({
        token: asIds ? `token_id:${id}` : String(id),
        logprob: fakeLogprob(id, i),
        bytes: null,
        top_logprobs: [],
      })),
    };
  const out: Record<string, unknown> = { ...completion };
  if (flavor === "vllm" && flag(body, "return_token_ids")) {
    out.prompt_token_ids = promptIds;
    choice.token_ids = completionIds;
  }
  if (flavor === "sglang") {
    if (flag(body, "return_prompt_token_ids")) choice.prompt_token_ids = promptIds;
    if (flag(body, "return_token_ids")) choice.token_ids = completionIds;
  }
  out.choices = [choice];
  return out;
}
