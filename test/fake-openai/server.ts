/**
 * An in-process OpenAI-compatible server for tests: scripted chat-completions replies
 * (plain and streamed), deterministic embeddings, a model list and a request log.
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type CompletionContext,
  completionChunks,
  completionObject,
  truncatedChunks,
} from "./chat-completions.ts";
import { embeddingsResponse } from "./embedding.ts";
import {
  defaultErrorBody,
  errorBody,
  recordRequest,
  sendJson,
  sseEvent,
  startSse,
  writeThenDrop,
} from "./http-util.ts";
import { type FakeTokens, withTokenIds } from "./token-ids.ts";
import type { FakeOpenAI, FakeOpenAIOptions, RecordedRequest, Reply } from "./types.ts";

/** The body sent by a `malformed` reply: truncated, hence not valid JSON. */
const MALFORMED_BODY = '{"id":"chatcmpl-fake","object":"chat.completion","choices":[{"index":0,"message":{';

/** A property of a JSON body, when the body is an object. */
function field(body: unknown, name: string): unknown {
  return typeof body === "object" && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/** Writes one scripted reply to a chat-completions request. */
async function writeReply(
  res: ServerResponse,
  reply: Reply,
  request: RecordedRequest,
  ctx: CompletionContext,
  tokens: FakeTokens | undefined,
): Promise<void> {
  const stream = field(request.body, "stream") === true;
  switch (reply.kind) {
    case "text":
    case "tool-calls": {
      if (!stream) {
        const whole = completionObject(reply, request.body, ctx) as Record<string, unknown>;
        sendJson(
          res,
          200,
          tokens && reply.kind === "text" ? withTokenIds(whole, request.body, reply, tokens) : whole,
        );
        return;
      }
      const includeUsage = field(field(request.body, "stream_options"), "include_usage") === true;
      startSse(res);
      for (const chunk of completionChunks(reply, request.body, ctx, includeUsage)) {
        res.write(sseEvent(chunk));
      }
      res.end(sseEvent("[DONE]"));
      return;
    }
    case "error":
      sendJson(res, reply.status, reply.body ?? defaultErrorBody(reply.status), reply.headers);
      return;
    case "malformed":
      res.writeHead(200, { "content-type": "application/json" });
      res.end(MALFORMED_BODY);
      return;
    case "truncated-stream": {
      if (stream) {
        startSse(res);
        await writeThenDrop(res, truncatedChunks(reply.text, ctx).map(sseEvent).join(""));
        return;
      }
      const full = JSON.stringify(completionObject({ kind: "text", text: reply.text }, request.body, ctx));
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(full)),
      });
      await writeThenDrop(res, full.slice(0, Math.floor(full.length / 2)));
      return;
    }
    case "raw":
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body);
      return;
  }
}

/**
 * Starts a fake OpenAI-compatible server on `127.0.0.1` (random port).
 *
 * Routes: `POST /v1/chat/completions` (one scripted reply per request; HTTP 500 and an
 * entry in `unexpected` when none is left), `POST /v1/embeddings` (deterministic
 * {@link fakeEmbedding} vectors; consumes no reply), `GET /v1/models`; anything else is a
 * 404 JSON error. Every request is appended to `requests`.
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const script: Reply[] = [...(options.replies ?? [])];
  const requests: RecordedRequest[] = [];
  const unexpected: RecordedRequest[] = [];
  const closing = new AbortController();
  const embeddingDimensions = options.embeddingDimensions ?? 8;
  let chatCount = 0;

  const wait = async (ms: number | undefined): Promise<void> => {
    if (ms !== undefined && ms > 0) {
      await sleep(ms, undefined, { signal: closing.signal });
    }
  };

  const chat = async (res: ServerResponse, request: RecordedRequest): Promise<void> => {
    chatCount += 1;
    const requestModel = field(request.body, "model");
    const ctx: CompletionContext = {
      id: `chatcmpl-fake-${chatCount}`,
      created: Math.floor(Date.now() / 1000),
      model: options.model ?? (typeof requestModel === "string" ? requestModel : "fake-model"),
      requestNumber: chatCount,
    };
    const reply = options.handler ? await options.handler(request) : script.shift();
    if (reply === undefined) {
      unexpected.push(request);
      await wait(options.latencyMs);
      sendJson(res, 500, errorBody("fake-openai: unexpected request", "server_error"));
      return;
    }
    await wait(reply.latencyMs ?? options.latencyMs);
    await writeReply(res, reply, request, ctx, options.tokens);
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    requests.push(request);
    const key = `${request.method} ${request.path}`;
    if (key === "POST /v1/chat/completions") {
      await chat(res, request);
    } else if (key === "POST /v1/embeddings") {
      await wait(options.latencyMs);
      sendJson(res, 200, embeddingsResponse(request.body, embeddingDimensions, options.model));
    } else if (key === "GET /v1/models") {
      await wait(options.latencyMs);
      const id = options.model ?? "fake-model";
      sendJson(res, 200, {
        object: "list",
        data: [{ id, object: "model", created: 0, owned_by: "fake-openai" }],
      });
    } else {
      sendJson(res, 404, errorBody(`fake-openai: no route for ${key}`, "invalid_request_error", "not_found"));
    }
  };

  const server = createServer((req, res) => {
    res.on("error", () => {});
    route(req, res).catch((error: unknown) => {
      if (closing.signal.aborted) {
        res.destroy();
      } else if (!res.headersSent) {
        const message = error instanceof Error ? error.message : String(error);
        sendJson(res, 500, errorBody(`fake-openai: ${message}`, "server_error"));
      } else {
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    unexpected,
    enqueue: (...replies) => {
      script.push(...replies);
    },
    pending: () => script.length,
    close: () => {
      closed ??= new Promise<void>((resolve, reject) => {
        closing.abort();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
