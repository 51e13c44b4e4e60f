/**
 * An in-process fake of the six web search APIs for tests: one `node:http` server on
 * `127.0.0.1`, each provider under its own prefix (`/tavily`, `/exa`, `/brave`, `/serper`,
 * `/searxng`, `/jina`), answering in that provider's own request and response format, logging
 * every request, and able to answer with errors (429 with Retry-After, 500, …), malformed JSON,
 * or not at all.
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sendJson } from "../fake-openai/http-util.ts";
import {
  DEFAULT_FAKE_RESULTS,
  errorBody,
  isSearchRoute,
  presentedKey,
  requestedCount,
  requestProblem,
  resultsBody,
} from "./formats.ts";
import {
  FAKE_SEARCH_PROVIDERS,
  type FakeSearch,
  type FakeSearchOptions,
  type FakeSearchProvider,
  type FakeSearchReply,
  type FakeSearchRequest,
} from "./types.ts";

/** Truncated JSON sent by a `malformed` reply. */
const MALFORMED_BODY = '{"results":[{"title":"Trunc';

async function readRequest(
  req: IncomingMessage,
): Promise<Omit<FakeSearchRequest, "provider" | "path"> & { pathname: string }> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const raw = Buffer.concat(parts).toString("utf8");
  let body: unknown;
  if (raw.length > 0) {
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  return {
    method: req.method ?? "GET",
    pathname: url.pathname,
    headers,
    query: Object.fromEntries(url.searchParams.entries()),
    body,
  };
}

function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  res.writeHead(status, {
    "content-type": "text/plain",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

function writeReply(
  res: ServerResponse,
  provider: FakeSearchProvider,
  request: FakeSearchRequest,
  reply: FakeSearchReply,
  defaults: FakeSearchOptions["results"],
): void {
  switch (reply.kind) {
    case "results": {
      const all = reply.results ?? defaults ?? DEFAULT_FAKE_RESULTS;
      const count = requestedCount(provider, request);
      const results = count === undefined ? all : all.slice(0, Math.max(0, count));
      sendJson(res, 200, resultsBody(provider, request, results));
      return;
    }
    case "error": {
      const body =
        reply.body ?? errorBody(provider, reply.status, `fake-search: scripted error ${reply.status}`);
      if (typeof body === "string") sendText(res, reply.status, body, reply.headers);
      else sendJson(res, reply.status, body, reply.headers);
      return;
    }
    case "json":
      sendJson(res, reply.status ?? 200, reply.body);
      return;
    case "malformed":
      res.writeHead(200, { "content-type": "application/json" });
      res.end(MALFORMED_BODY);
      return;
    case "hang":
      return;
  }
}

/**
 * Starts the fake search server. Configure a provider with `baseUrl(provider)` as its base URL;
 * requests to a provider's search endpoint get (in order) the `handler`'s reply, the next
 * scripted reply, or the `results`. Keys in `keys` are enforced (401 otherwise); requests
 * without a query get the provider's 400 (Brave: 422); SearXNG without `format=json` gets 403,
 * as a real instance with the JSON format disabled does.
 */
export async function startFakeSearch(options: FakeSearchOptions = {}): Promise<FakeSearch> {
  const requests: FakeSearchRequest[] = [];
  const scripts = new Map<FakeSearchProvider, FakeSearchReply[]>(
    FAKE_SEARCH_PROVIDERS.map((p) => [p, [...(options.replies?.[p] ?? [])]]),
  );

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { pathname, ...rest } = await readRequest(req);
    const match = /^\/([a-z]+)(\/.*)?$/.exec(pathname);
    const provider = FAKE_SEARCH_PROVIDERS.find((p) => p === match?.[1]);
    if (!provider) {
      sendJson(res, 404, { error: `fake-search: no provider at ${pathname}` });
      return;
    }
    const request: FakeSearchRequest = { provider, path: match?.[2] ?? "/", ...rest };
    requests.push(request);
    if (!isSearchRoute(provider, request)) {
      sendJson(
        res,
        404,
        errorBody(provider, 404, `fake-search: no route for ${request.method} ${request.path}`),
      );
      return;
    }
    const key = options.keys?.[provider];
    if (key !== undefined && presentedKey(provider, request) !== key) {
      const body = errorBody(provider, 401, "fake-search: missing or invalid API key");
      if (typeof body === "string") sendText(res, 401, body);
      else sendJson(res, 401, body);
      return;
    }
    const problem = requestProblem(provider, request);
    if (problem) {
      const body = errorBody(provider, problem.status, problem.message);
      if (typeof body === "string") sendText(res, problem.status, body);
      else sendJson(res, problem.status, body);
      return;
    }
    const reply = options.handler?.(request) ?? scripts.get(provider)!.shift() ?? { kind: "results" };
    writeReply(res, provider, request, reply, options.results);
  };

  const server = createServer((req, res) => {
    res.on("error", () => {});
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: `fake-search: ${String(error)}` });
      else res.destroy();
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
  const url = `http://127.0.0.1:${port}`;

  let closed: Promise<void> | undefined;
  return {
    url,
    baseUrl: (provider) => `${url}/${provider}`,
    requests,
    requestsFor: (provider) => requests.filter((r) => r.provider === provider),
    enqueue: (provider, ...replies) => {
      scripts.get(provider)!.push(...replies);
    },
    pending: (provider) => scripts.get(provider)!.length,
    close: () => {
      closed ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
