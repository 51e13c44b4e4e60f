/**
 * A language model whose provider package is imported on its first call, so that building a
 * model registry — and importing Dossier — loads no provider SDK until a model is used.
 */

import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { LanguageModelMiddleware } from "ai";

/**
 * A model that stands for the one `load` builds: `provider` and `modelId` are known at once,
 * the calls wait for `load` (run once; its failure fails every call).
 */
export function lazyModel(
  provider: string,
  modelId: string,
  load: () => Promise<LanguageModelV4>,
): LanguageModelV4 {
  let loading: Promise<LanguageModelV4> | undefined;
  const model = () => {
    loading ??= load();
    return loading;
  };
  return {
    specificationVersion: "v4",
    provider,
    modelId,
    get supportedUrls() {
      return model().then((m) => m.supportedUrls);
    },
    doGenerate: async (options) => (await model()).doGenerate(options),
    doStream: async (options) => (await model()).doStream(options),
  };
}

/** The part of an AI SDK middleware {@link wrapModel} applies. */
export interface CallMiddleware {
  wrapGenerate?: LanguageModelMiddleware["wrapGenerate"];
  wrapStream?: LanguageModelMiddleware["wrapStream"];
}

/**
 * `model` with `middleware`'s `wrapGenerate` and `wrapStream` around its calls: what the AI
 * SDK's `wrapLanguageModel` does for these two hooks, without loading the SDK.
 */
export function wrapModel(model: LanguageModelV4, middleware: CallMiddleware): LanguageModelV4 {
  const { wrapGenerate, wrapStream } = middleware;
  return {
    specificationVersion: "v4",
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    async doGenerate(params) {
      const doGenerate = async () => await model.doGenerate(params);
      const doStream = async () => await model.doStream(params);
      return wrapGenerate ? await wrapGenerate({ doGenerate, doStream, params, model }) : await doGenerate();
    },
    async doStream(params) {
      const doGenerate = async () => await model.doGenerate(params);
      const doStream = async () => await model.doStream(params);
      return wrapStream ? await wrapStream({ doGenerate, doStream, params, model }) : await doStream();
    },
  };
}
