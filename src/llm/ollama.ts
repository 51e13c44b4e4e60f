/**
 * Ollama through its own API (`/api/chat`, `ollama-ai-provider-v2`) rather than its
 * OpenAI-compatible endpoint, because only the native API takes the context length: every call
 * sends `options.num_ctx` — the model's configured context window (`contextWindows`), else
 * {@link DEFAULT_OLLAMA_NUM_CTX} — so a long prompt is not silently cut to the server's default
 * window (2,048–4,096 tokens on most machines). The output cap, temperature, top-p and seed go
 * into `options` too (`num_predict`, …), where Ollama reads them.
 */

import { APICallError, type LanguageModelV4, type LanguageModelV4CallOptions } from "@ai-sdk/provider";

/** The native API of a local Ollama server. */
export const OLLAMA_BASE_URL = "http://localhost:11434/api";

/**
 * The context window (tokens) sent as `num_ctx` when the model has none configured: room for a
 * page and its instructions, where Ollama's own default would cut the prompt's start off.
 */
export const DEFAULT_OLLAMA_NUM_CTX = 16_384;

/**
 * The native API's URL for a configured base URL: the OpenAI-compatible `…/v1` of the same
 * server becomes `…/api`; a bare server address gets `/api`.
 */
export function ollamaApiUrl(baseUrl: string | undefined): string {
  if (!baseUrl) return OLLAMA_BASE_URL;
  const url = baseUrl.replace(/\/+$/, "");
  if (/\/api$/.test(url)) return url;
  if (/\/v1$/.test(url)) return `${url.slice(0, -3)}/api`;
  return `${url}/api`;
}

type OllamaRuntimeOptions = Record<string, number | string | string[] | undefined>;

/**
 * The call options with Ollama's runtime `options` filled in: `num_ctx`, and the call's output
 * cap, temperature, top-p and seed as `num_predict`, `temperature`, `top_p`, `seed`. Options
 * a caller gave under `providerOptions.ollama.options` win.
 */
export function withOllamaRuntime(
  options: LanguageModelV4CallOptions,
  numCtx: number,
): LanguageModelV4CallOptions {
  const given = (options.providerOptions?.ollama ?? {}) as { options?: OllamaRuntimeOptions };
  // The seed travels in `options` (the provider would only warn that it is unsupported).
  const { seed, ...rest } = options;
  const runtime: OllamaRuntimeOptions = { num_ctx: numCtx };
  if (options.maxOutputTokens !== undefined) runtime.num_predict = options.maxOutputTokens;
  if (options.temperature !== undefined) runtime.temperature = options.temperature;
  if (options.topP !== undefined) runtime.top_p = options.topP;
  if (seed !== undefined) runtime.seed = seed;
  return {
    ...rest,
    providerOptions: {
      ...options.providerOptions,
      ollama: { ...given, options: { ...runtime, ...given.options } } as never,
    },
  };
}

/** Options of {@link createOllamaModel}. */
export interface OllamaModelOptions {
  modelId: string;
  /** The configured base URL (`DOSSIER_BASE_URL`), if any; see {@link ollamaApiUrl}. */
  baseUrl?: string | undefined;
  /** Sent as a bearer token (a server behind an authenticating proxy). */
  apiKey?: string | undefined;
  /** The context window, sent as `num_ctx`. */
  numCtx: number;
  fetch?: typeof globalThis.fetch | undefined;
}

/** An Ollama chat model (the provider package is imported here, on first use). */
export async function createOllamaModel(options: OllamaModelOptions): Promise<LanguageModelV4> {
  const { createOllama } = await import("ollama-ai-provider-v2");
  const model = createOllama({
    baseURL: ollamaApiUrl(options.baseUrl),
    ...(options.apiKey ? { headers: { Authorization: `Bearer ${options.apiKey}` } } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })(options.modelId);
  return {
    specificationVersion: "v4",
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (call) =>
      model.doGenerate(withOllamaRuntime(call, options.numCtx)).then(same, withOllamaMessage),
    doStream: (call) => model.doStream(withOllamaRuntime(call, options.numCtx)).then(same, withOllamaMessage),
  };
}

const same = <T>(value: T) => value;

/**
 * Ollama answers a failed call with `{"error": "model 'x' not found, try pulling it first"}`,
 * which the provider (expecting `{"error": {"message": …}}`) reduces to the status text: the
 * error is thrown again with Ollama's own message.
 */
export function withOllamaMessage(error: unknown): never {
  if (APICallError.isInstance(error) && error.responseBody) {
    let message: unknown;
    try {
      message = (JSON.parse(error.responseBody) as { error?: unknown }).error;
    } catch {
      // Not JSON: the provider's message stands.
    }
    if (typeof message === "string" && message.trim()) {
      throw new APICallError({
        message: message.trim().slice(0, 500),
        url: error.url,
        requestBodyValues: error.requestBodyValues,
        ...(error.statusCode === undefined ? {} : { statusCode: error.statusCode }),
        ...(error.responseHeaders ? { responseHeaders: error.responseHeaders } : {}),
        responseBody: error.responseBody,
        isRetryable: error.isRetryable,
        cause: error,
      });
    }
  }
  throw error;
}
