/**
 * An in-process fake of the six web search APIs for tests: one `node:http` server on
 * `127.0.0.1`, each provider under its own prefix (`/tavily`, `/exa`, `/brave`, `/serper`,
 * `/searxng`, `/jina`), answering in that provider's own request and response format, logging
 * every request, and able to answer with errors (429 with Retry-After, 500, …), malformed JSON,
 * or not at all. The academic providers live under `/arxiv` (Atom XML) and `/openalex` (JSON).
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sendJson } from "../fake-openai/http-util.ts";
import {
  ACADEMIC_CONTENT_TYPE,
  ACADEMIC_MALFORMED_BODY,
  academicCount,
  academicErrorBody,
  academicRequestProblem,
  academicResultsBody,
  DEFAULT_FAKE_PAPERS,
  isAcademicRoute,
} from "./academic-formats.ts";
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
  FAKE_ACADEMIC_PROVIDERS,
  FAKE_SEARCH_PROVIDERS,
  type FakeAcademicProvider,
  type FakeProvider,
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
    queryAll: Object.fromEntries(
      [...new Set(url.searchParams.keys())].map((k) => [k, url.searchParams.getAll(k)]),
    ),
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
    case "raw":
      sendText(
        res,
        reply.status ?? 200,
        reply.body,
        reply.contentType ? { "content-type": reply.contentType } : {},
      );
      return;
    case "hang":
      return;
  }
}

/** Sends `body` (text, or JSON when not a string) with `status` and `headers`. */
function sendBody(
  res: ServerResponse,
  status: number,
  body: unknown,
  contentType: string,
  headers: Record<string, string> = {},
): void {
  if (typeof body === "string") sendText(res, status, body, { "content-type": contentType, ...headers });
  else sendJson(res, status, body, headers);
}

/** Writes the reply of an academic provider (arXiv's Atom XML, OpenAlex's JSON). */
function writeAcademicReply(
  res: ServerResponse,
  provider: FakeAcademicProvider,
  request: FakeSearchRequest,
  reply: FakeSearchReply,
  defaults: FakeSearchOptions["results"],
): void {
  const type = ACADEMIC_CONTENT_TYPE[provider];
  const errorType = provider === "arxiv" ? "text/plain" : "application/json";
  switch (reply.kind) {
    case "results": {
      const all = reply.results ?? defaults ?? DEFAULT_FAKE_PAPERS;
      const results = all.slice(0, Math.max(0, academicCount(provider, request)));
      sendText(res, 200, academicResultsBody(provider, request, results), { "content-type": type });
      return;
    }
    case "error": {
      const body =
        reply.body ??
        academicErrorBody(provider, reply.status, `fake-search: scripted error ${reply.status}`);
      const contentType = provider === "arxiv" && reply.status === 400 ? type : errorType;
      sendBody(res, reply.status, body, contentType, reply.headers);
      return;
    }
    case "json":
      sendJson(res, reply.status ?? 200, reply.body);
      return;
    case "malformed":
      sendText(res, 200, ACADEMIC_MALFORMED_BODY[provider], { "content-type": type });
      return;
    case "raw":
      sendText(res, reply.status ?? 200, reply.body, { "content-type": reply.contentType ?? type });
      return;
    case "hang":
      return;
  }
}

/** Serves one request to an academic provider's prefix. */
function routeAcademic(
  res: ServerResponse,
  provider: FakeAcademicProvider,
  request: FakeSearchRequest,
  options: FakeSearchOptions,
  next: () => FakeSearchReply | undefined,
): void {
  const type = provider === "arxiv" ? "text/plain" : "application/json";
  if (!isAcademicRoute(provider, request)) {
    const body = academicErrorBody(
      provider,
      404,
      `fake-search: no route for ${request.method} ${request.path}`,
    );
    sendBody(res, 404, body, type);
    return;
  }
  const problem = academicRequestProblem(provider, request);
  if (problem) {
    const body = academicErrorBody(provider, problem.status, problem.message);
    sendBody(res, problem.status, body, problem.status === 400 ? ACADEMIC_CONTENT_TYPE[provider] : type);
    return;
  }
  const reply = options.handler?.(request) ?? next() ?? { kind: "results" };
  writeAcademicReply(res, provider, request, reply, options.results);
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
  const scripts = new Map<FakeProvider, FakeSearchReply[]>(
    [...FAKE_SEARCH_PROVIDERS, ...FAKE_ACADEMIC_PROVIDERS].map((p) => [p, [...(options.replies?.[p] ?? [])]]),
  );

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { pathname, ...rest } = await readRequest(req);
    const latency =
      typeof options.latencyMs === "function" ? options.latencyMs(rest.query) : options.latencyMs;
    if (latency) await new Promise((r) => setTimeout(r, latency));
    const match = /^\/([a-z]+)(\/.*)?$/.exec(pathname);
    const academic = FAKE_ACADEMIC_PROVIDERS.find((p) => p === match?.[1]);
    if (academic) {
      const request: FakeSearchRequest = { provider: academic, path: match?.[2] ?? "/", ...rest };
      requests.push(request);
      routeAcademic(res, academic, request, options, () => scripts.get(academic)!.shift());
      return;
    }
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
