/**
 * A tiny deterministic tokenizer for the fake server's token ids: every UTF-8 byte is its own
 * token (ids 0–255), and the ChatML markers `<|im_start|>` (256) and `<|im_end|>` (257, the stop
 * token) are single tokens. Its chat template is ChatML: each message as
 * `<|im_start|>{role}\n{content}<|im_end|>\n`, then `<|im_start|>assistant\n`.
 */

import type { FakeTokenizer, WireMessage } from "./token-ids.ts";

/** The special tokens and their ids. */
export const BYTE_SPECIALS: Readonly<Record<string, number>> = { "<|im_start|>": 256, "<|im_end|>": 257 };
const BY_ID = new Map(Object.entries(BYTE_SPECIALS).map(([text, id]) => [id, text]));
const SPLIT = /(<\|im_start\|>|<\|im_end\|>)/;

/** The ids of `text`. */
export function byteEncode(text: string): number[] {
  return text
    .split(SPLIT)
    .flatMap((part) => (part in BYTE_SPECIALS ? [BYTE_SPECIALS[part]!] : [...Buffer.from(part, "utf8")]));
}

/** The text of `ids`; `skipSpecial` leaves the special tokens out. */
export function byteDecode(ids: readonly number[], skipSpecial = false): string {
  let out = "";
  let bytes: number[] = [];
  const flush = () => {
    out += Buffer.from(bytes).toString("utf8");
    bytes = [];
  };
  for (const id of ids) {
    const special = BY_ID.get(id);
    if (special === undefined) bytes.push(id);
    else {
      flush();
      if (!skipSpecial) out += special;
    }
  }
  flush();
  return out;
}

/** ChatML with the generation prompt. */
export function chatMl(messages: readonly WireMessage[]): string {
  return `${messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join("")}<|im_start|>assistant\n`;
}

/** The byte tokenizer as the fake server's. */
export const BYTE_TOKENIZER: FakeTokenizer = { render: chatMl, encode: byteEncode, eosId: 257 };
