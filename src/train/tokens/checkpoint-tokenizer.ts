/**
 * A checkpoint's own tokenization, for calls whose server returned no token ids: the chat
 * template of its `tokenizer_config.json` (or its `chat_template.jinja`) rendered with
 * @huggingface/jinja over the call's messages with the generation prompt, and its
 * `tokenizer.json` applied by @huggingface/tokenizers without adding special tokens (the
 * template writes them), as vLLM and SGLang tokenize a chat request. A completion is its text's
 * ids, then the stop token (`eos_token`) when the call stopped by itself (finish reason `stop`),
 * as the servers list it.
 *
 * Ids made this way are a re-tokenization: the sampler may have produced another tokenization of
 * the same text, and they carry no log-probs. The export says so (`token_source`).
 */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DossierError } from "../../core/errors.ts";
import type { RecordedCall, RecordedMessage } from "../recorded-call.ts";
import type { CallTokens } from "./call-tokens.ts";

/** A checkpoint's tokenizer and chat template. */
export interface CheckpointTokenizer {
  /** The prompt ids of a conversation: the chat template with the generation prompt. */
  promptIds(messages: readonly RecordedMessage[]): number[];
  /** The ids of a completion, then the stop token when `stopped`. */
  completionIds(text: string, stopped: boolean): number[];
  /** The text of ids (special tokens included). */
  decode(ids: readonly number[]): string;
  /** The stop token's id. */
  eosId: number;
}

type Json = Record<string, unknown>;

function readJson(dir: string, file: string): Json {
  const path = join(dir, file);
  if (!existsSync(path))
    throw new DossierError("NOT_FOUND", `the tokenizer folder ${dir} has no ${file}`, { details: { path } });
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Json;
  } catch (error) {
    throw new DossierError("INPUT_INVALID", `${path} is not JSON: ${(error as Error).message}`);
  }
}

/** A special token of tokenizer_config.json: a string or an AddedToken object. */
function tokenText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  const content = (value as { content?: unknown } | null)?.content;
  return typeof content === "string" ? content : undefined;
}

/** The chat template: `chat_template.jinja`, else the config's (a string, or the `default` of a list). */
function chatTemplate(dir: string, config: Json): string {
  const file = join(dir, "chat_template.jinja");
  if (existsSync(file)) return readFileSync(file, "utf8");
  const t = config.chat_template;
  if (typeof t === "string") return t;
  if (Array.isArray(t)) {
    const named = t as { name?: unknown; template?: unknown }[];
    const chosen = named.find((x) => x.name === "default") ?? named[0];
    if (typeof chosen?.template === "string") return chosen.template;
  }
  throw new DossierError("INPUT_INVALID", `the tokenizer folder ${dir} has no chat template`, {
    details: { dir },
  });
}

/** A message as chat templates read it (OpenAI's shape). */
function templateMessage(m: RecordedMessage): Json {
  return {
    role: m.role,
    content: m.content,
    ...(m.toolCalls
      ? {
          tool_calls: m.toolCalls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.arguments },
          })),
        }
      : {}),
    ...(m.toolCallId ? { tool_call_id: m.toolCallId } : {}),
  };
}

/**
 * The tokenizer of the checkpoint in `dir` (`tokenizer.json`, `tokenizer_config.json` and its
 * chat template); NOT_FOUND or INPUT_INVALID naming what is missing.
 */
export async function loadCheckpointTokenizer(dir: string): Promise<CheckpointTokenizer> {
  const [{ Tokenizer }, { Template }] = await Promise.all([
    import("@huggingface/tokenizers"),
    import("@huggingface/jinja"),
  ]);
  const config = readJson(dir, "tokenizer_config.json");
  const tokenizer = new Tokenizer(readJson(dir, "tokenizer.json"), config);
  let template: InstanceType<typeof Template>;
  try {
    template = new Template(chatTemplate(dir, config));
  } catch (error) {
    throw new DossierError(
      "INPUT_INVALID",
      `the chat template of ${dir} does not parse: ${(error as Error).message}`,
    );
  }
  const eos = tokenText(config.eos_token);
  const eosId = eos === undefined ? undefined : tokenizer.token_to_id(eos);
  if (eosId === undefined)
    throw new DossierError(
      "INPUT_INVALID",
      `the tokenizer of ${dir} names no stop token (eos_token) it knows`,
    );
  const specials = { bos_token: tokenText(config.bos_token) ?? "", eos_token: eos };
  const encode = (text: string) => tokenizer.encode(text, { add_special_tokens: false }).ids;
  return {
    eosId,
    promptIds(messages) {
      let text: string;
      try {
        text = template.render({
          messages: messages.map(templateMessage),
          add_generation_prompt: true,
          ...specials,
        });
      } catch (error) {
        throw new DossierError(
          "INPUT_INVALID",
          `the chat template of ${dir} failed: ${(error as Error).message}`,
        );
      }
      return encode(text);
    },
    completionIds: (text, stopped) => [...encode(text), ...(stopped ? [eosId] : [])],
    decode: (ids) => tokenizer.decode([...ids], { skip_special_tokens: false }),
  };
}

/**
 * A call's ids re-tokenized from its messages and completion (no log-probs). The call was
 * constrained when it sent a response schema (a native structured call; in prompt mode the
 * schema is only text), unless its recording says otherwise.
 */
export function retokenizeCall(call: RecordedCall, tokenizer: CheckpointTokenizer): CallTokens {
  return {
    constrained: call.tokens?.constrained ?? call.responseSchema !== undefined,
    promptIds: tokenizer.promptIds(call.messages),
    completionIds: tokenizer.completionIds(call.completion, call.finishReason === "stop"),
    logprobs: null,
  };
}
