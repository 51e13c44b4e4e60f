/**
 * Cheap token estimates for budget reservations, made before a call when the real count is
 * not yet known. They lean high: about 3 characters per token for alphabetic text, one token
 * per CJK character, and a small overhead per message.
 */

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/gu;

/** Estimated tokens of a text. */
export function estimateTokens(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return Math.ceil(cjk + (text.length - cjk) / 3);
}

/** Estimated tokens of a prompt made of several messages. */
export function estimatePromptTokens(parts: readonly string[]): number {
  return parts.reduce((sum, p) => sum + estimateTokens(p) + 4, 8);
}
