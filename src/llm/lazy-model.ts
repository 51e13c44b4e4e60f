/**
 * A language model whose provider package is imported on its first call, so that building a
 * model registry — and importing Dossier — loads no provider SDK until a model is used.
 */

import type { LanguageModelV4 } from "@ai-sdk/provider";

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
