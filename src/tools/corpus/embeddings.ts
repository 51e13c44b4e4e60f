/**
 * A client of an OpenAI-compatible `/embeddings` endpoint: `POST <baseUrl>/embeddings` with
 * `{ model, input: [...] }`, inputs sent in batches, the answer validated and returned in
 * input order as Float32Arrays. This is the only network access of the corpus code, and it
 * happens only when hybrid retrieval is asked for.
 *
 * Settings (see {@link embeddingSettings}): `DOSSIER_EMBEDDING_URL` (else `DOSSIER_BASE_URL` /
 * the configured `baseUrl`, else `https://api.openai.com/v1`), `DOSSIER_EMBEDDING_MODEL` (else
 * `text-embedding-3-small` when the URL is OpenAI's), `DOSSIER_EMBEDDING_API_KEY` (else
 * `DOSSIER_API_KEY` / the configured `apiKey`, else `OPENAI_API_KEY` for OpenAI's URL).
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { fetchJson } from "../http-errors.ts";
import type { CorpusIndex } from "./corpus-index.ts";

/** Turns texts into vectors. */
export interface EmbeddingClient {
  /** The model name (stored with the vectors). */
  readonly model: string;
  /** One vector per text, in order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** Options of {@link createEmbeddingClient}. */
export interface EmbeddingClientOptions {
  /** Base URL ending before `/embeddings`, e.g. `http://localhost:11434/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Texts per request (default 64). */
  batchSize?: number;
  /** Requested vector length, for models that support `dimensions`. */
  dimensions?: number;
  fetch?: typeof globalThis.fetch;
}

/** OpenAI's base URL, the default. */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

const responseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()).min(1) })).min(1),
});

/** Creates an embeddings client. */
export function createEmbeddingClient(options: EmbeddingClientOptions): EmbeddingClient {
  const fetchFn = options.fetch ?? globalThis.fetch;
  const batchSize = Math.max(1, options.batchSize ?? 64);
  const url = `${options.baseUrl.replace(/\/+$/, "")}/embeddings`;
  const request = async (input: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> => {
    const body = JSON.stringify({
      model: options.model,
      input,
      ...(options.dimensions ? { dimensions: options.dimensions } : {}),
    });
    const raw = await fetchJson("embeddings", fetchFn, url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
      body,
      ...(signal ? { signal } : {}),
    });
    const parsed = responseSchema.safeParse(raw);
    if (!parsed.success || parsed.data.data.length !== input.length) {
      throw new DossierError(
        "PROVIDER_ERROR",
        `embeddings: unexpected answer (${parsed.success ? `${parsed.data.data.length} vectors for ${input.length} inputs` : parsed.error.issues[0]?.message})`,
        { retryable: false, details: { provider: "embeddings" } },
      );
    }
    const out = new Array<Float32Array>(input.length);
    for (const item of parsed.data.data) {
      if (item.index >= input.length)
        throw new DossierError("PROVIDER_ERROR", "embeddings: index out of range");
      out[item.index] = Float32Array.from(item.embedding);
    }
    const dims = out[0]?.length;
    if (out.some((v) => v === undefined || v.length !== dims)) {
      throw new DossierError("PROVIDER_ERROR", "embeddings: vectors missing or of different lengths");
    }
    return out;
  };
  return {
    model: options.model,
    async embed(texts, signal) {
      const vectors: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        vectors.push(...(await request(texts.slice(i, i + batchSize), signal)));
      }
      return vectors;
    },
  };
}

/** Where embeddings come from. */
export interface EmbeddingSettings {
  baseUrl: string;
  model: string;
  apiKey?: string;
}

/**
 * The embedding settings from the environment and configuration. `fallbackModel` (e.g. the
 * model a corpus was embedded with) applies when DOSSIER_EMBEDDING_MODEL is not set. Throws
 * PROVIDER_NOT_CONFIGURED when no model can be determined.
 */
export function embeddingSettings(
  env: Record<string, string | undefined>,
  config: { baseUrl?: string; apiKey?: string } = {},
  fallback: { model?: string; baseUrl?: string } = {},
): EmbeddingSettings {
  const baseUrl = env.DOSSIER_EMBEDDING_URL || fallback.baseUrl || config.baseUrl || OPENAI_BASE_URL;
  const openai = baseUrl.replace(/\/+$/, "") === OPENAI_BASE_URL;
  const model =
    env.DOSSIER_EMBEDDING_MODEL || fallback.model || (openai ? "text-embedding-3-small" : undefined);
  if (!model) {
    throw new DossierError(
      "PROVIDER_NOT_CONFIGURED",
      `hybrid retrieval needs an embedding model: set DOSSIER_EMBEDDING_MODEL (embeddings are requested from ${baseUrl}/embeddings)`,
    );
  }
  const apiKey =
    env.DOSSIER_EMBEDDING_API_KEY || config.apiKey || (openai ? env.OPENAI_API_KEY : undefined) || undefined;
  return { baseUrl, model, ...(apiKey ? { apiKey } : {}) };
}

/**
 * The embedding settings for a corpus: as {@link embeddingSettings}, with the model the
 * corpus was embedded with and the URL it was embedded from as fallbacks.
 */
export function corpusEmbeddingSettings(
  index: CorpusIndex,
  env: Record<string, string | undefined>,
  config: { baseUrl?: string; apiKey?: string } = {},
): EmbeddingSettings {
  const stored = index.vectorModel();
  const storedUrl = index.getMeta("embedding_url");
  return embeddingSettings(env, config, {
    ...(stored ? { model: stored.model } : {}),
    ...(storedUrl ? { baseUrl: storedUrl } : {}),
  });
}
