/**
 * Deterministic fake embeddings: character trigrams hashed into signed buckets, then
 * L2-normalised, so texts that share many trigrams get similar vectors.
 */

import { countTextTokens } from "./chat-completions.ts";

/** FNV-1a 32-bit hash of a string's UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * The embedding the fake server returns for `text`: a vector of `dims` numbers with unit
 * L2 norm. The text is lower-cased, whitespace-collapsed and padded with one space each
 * side; every character trigram adds ±1 to the bucket its hash selects. A text without
 * any trigram weight (e.g. the empty string) gets the unit vector `[1, 0, 0, ...]`.
 */
export function fakeEmbedding(text: string, dims: number): number[] {
  if (!Number.isInteger(dims) || dims < 1) {
    throw new RangeError(`fakeEmbedding: dims must be a positive integer, got ${dims}`);
  }
  const vector = new Array<number>(dims).fill(0);
  const normalised = ` ${text.toLowerCase().replace(/\s+/g, " ").trim()} `;
  for (let i = 0; i + 3 <= normalised.length; i++) {
    const hash = fnv1a(normalised.slice(i, i + 3));
    const bucket = hash % dims;
    vector[bucket] = (vector[bucket] ?? 0) + ((hash & 0x80000000) === 0 ? 1 : -1);
  }
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  if (norm === 0) {
    return vector.map((_, i) => (i === 0 ? 1 : 0));
  }
  return vector.map((x) => x / norm);
}

/** The inputs of an embeddings request body, as strings. */
function embeddingInputs(body: unknown): string[] {
  const input = typeof body === "object" && body !== null ? (body as { input?: unknown }).input : undefined;
  if (typeof input === "string") {
    return [input];
  }
  if (Array.isArray(input)) {
    return input.map((item) => (typeof item === "string" ? item : JSON.stringify(item)));
  }
  return [];
}

/**
 * Builds the OpenAI `/v1/embeddings` response for a request body. A positive integer
 * `dimensions` in the request overrides `defaultDimensions`.
 */
export function embeddingsResponse(
  body: unknown,
  defaultDimensions: number,
  model: string | undefined,
): object {
  const requested =
    typeof body === "object" && body !== null ? (body as { dimensions?: unknown }).dimensions : undefined;
  const dims =
    typeof requested === "number" && Number.isInteger(requested) && requested > 0
      ? requested
      : defaultDimensions;
  const requestModel =
    typeof body === "object" && body !== null ? (body as { model?: unknown }).model : undefined;
  const inputs = embeddingInputs(body);
  const tokens = inputs.reduce((sum, text) => sum + countTextTokens(text), 0);
  return {
    object: "list",
    data: inputs.map((text, index) => ({ object: "embedding", index, embedding: fakeEmbedding(text, dims) })),
    model: model ?? (typeof requestModel === "string" ? requestModel : "fake-embedding"),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
