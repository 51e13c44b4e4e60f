/**
 * Models under a shared provider limiter: every request to a model provider (each attempt, not a
 * journal replay) holds a slot of `model:<provider>` while it is under way, so the workers of a
 * run queue together never have more requests in flight at one provider than its limit. The
 * registry is wrapped from outside; each model is wrapped once with AI SDK middleware (applied by
 * llm/lazy-model.ts, so that this module does not load the AI SDK).
 */

import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { LanguageModel, LanguageModelMiddleware } from "ai";
import { wrapModel } from "../llm/lazy-model.ts";
import type { ModelRegistry, ResolvedModel } from "../llm/registry.ts";
import type { ProviderLimiter, ProviderLimits } from "../tools/provider-limiter.ts";
import { reportSlotWait } from "../tools/slot-waits.ts";

/** Requests in flight at once per model provider when nothing else is set. */
export const DEFAULT_MODEL_LIMITS: ProviderLimits = { concurrency: 8 };

/** The limiter's name of a model provider (`model:openai`, `model:ollama`…). */
export function modelProviderKey(provider: string): string {
  return `model:${provider}`;
}

/** Options of {@link limitModels}. */
export interface ModelLimitOptions {
  limiter: ProviderLimiter;
  /** The limits of a model provider (default {@link DEFAULT_MODEL_LIMITS}). */
  limitsOf?: (provider: string) => ProviderLimits;
}

/** `registry` with each model's requests held to its provider's shared limits. */
export function limitModels(registry: ModelRegistry, options: ModelLimitOptions): ModelRegistry {
  const wrapped = new WeakMap<object, LanguageModel>();
  const limited = (resolved: ResolvedModel): LanguageModel => {
    const model = resolved.model;
    // A model given by id (the AI SDK's gateway) cannot be wrapped; none of Dossier's providers gives one.
    if (typeof model !== "object" || model === null) return model;
    let done = wrapped.get(model);
    if (!done) {
      const key = modelProviderKey(resolved.spec.provider);
      const limits = options.limitsOf?.(resolved.spec.provider) ?? DEFAULT_MODEL_LIMITS;
      done = wrapModel(model as LanguageModelV4, slotMiddleware(options.limiter, key, limits));
      wrapped.set(model, done);
    }
    return done;
  };
  return {
    ...registry,
    forRole(role) {
      const resolved = registry.forRole(role);
      return { ...resolved, model: limited(resolved) };
    },
  };
}

/** A slot of `key`, its wait told to the call it delays (tools/slot-waits.ts: llm-end's queueMs). */
async function acquire(limiter: ProviderLimiter, key: string, limits: ProviderLimits, signal?: AbortSignal) {
  const asked = Date.now();
  const slot = await limiter.acquire(key, limits, signal);
  reportSlotWait(key, Date.now() - asked);
  return slot;
}

/** Middleware that holds a slot of `key` for each request (a stream's until it ends). */
function slotMiddleware(
  limiter: ProviderLimiter,
  key: string,
  limits: ProviderLimits,
): LanguageModelMiddleware {
  return {
    async wrapGenerate({ doGenerate, params }) {
      const slot = await acquire(limiter, key, limits, params.abortSignal);
      try {
        return await doGenerate();
      } finally {
        await slot.release();
      }
    },
    async wrapStream({ doStream, params }) {
      const slot = await acquire(limiter, key, limits, params.abortSignal);
      let result: Awaited<ReturnType<typeof doStream>>;
      try {
        result = await doStream();
      } catch (error) {
        await slot.release();
        throw error;
      }
      const release = () => void slot.release();
      const stream = result.stream.pipeThrough(
        new TransformStream({
          flush: release,
        }),
      );
      // A reader that stops early (cancel) ends the request too.
      const reader = stream.getReader();
      return {
        ...result,
        stream: new ReadableStream({
          async pull(controller) {
            const next = await reader.read().catch((error: unknown) => {
              release();
              throw error;
            });
            if (next.done) controller.close();
            else controller.enqueue(next.value);
          },
          cancel(reason) {
            release();
            return reader.cancel(reason);
          },
        }),
      };
    },
  };
}
