/**
 * Embedding requests through the ToolGateway (tool `embeddings`, provider `embeddings`), so
 * bulk embedding at index time gets the gateway's timeout, retries with backoff, rate limit
 * and circuit breaker. Failures are rethrown as DossierErrors.
 */

import type { ToolGateway } from "../gateway.ts";
import { toolFailure } from "../tool-failure.ts";
import type { EmbeddingClient } from "./embeddings.ts";

export { toolFailure } from "../tool-failure.ts";

/** Wraps `client` so each request is one gateway call. */
export function gatewayEmbeddings(gateway: ToolGateway, client: EmbeddingClient): EmbeddingClient {
  return {
    model: client.model,
    async embed(texts) {
      const result = await gateway.call<Float32Array[]>({
        tool: "embeddings",
        provider: "embeddings",
        args: { model: client.model, inputs: texts.length },
        cache: false,
        count: (vectors) => vectors.length,
        run: (signal) => client.embed(texts, signal),
      });
      if (!result.ok) throw toolFailure(result.error, { provider: "embeddings" });
      return result.value;
    },
  };
}
