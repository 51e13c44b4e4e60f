/**
 * Small `node:http` helpers of the fake OpenAI server.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import type { RecordedRequest } from "./types.ts";

/** Reads a request fully and records it. */
export async function recordRequest(req: IncomingMessage): Promise<RecordedRequest> {
  const parts: Buffer[] = [];
  for await (const part of req) {
    parts.push(part as Buffer);
  }
  const raw = Buffer.concat(parts).toString("utf8");
  let body: unknown = raw;
  if (raw.length > 0) {
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) {
      headers[name] = Array.isArray(value) ? value.join(", ") : value;
    }
  }
  return {
    method: req.method ?? "GET",
    path: new URL(req.url ?? "/", "http://127.0.0.1").pathname,
    headers,
    body,
    receivedAt: Date.now(),
  };
}

/** Sends a JSON response with a content length. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) {
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** Starts a server-sent-events response. */
export function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
}

/** The SSE encoding of one `data:` event. */
export function sseEvent(data: unknown): string {
  return `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

/** Writes data and resolves once it has been handed to the socket. */
export function writeFlushed(res: ServerResponse, data: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) {
      resolve();
      return;
    }
    res.write(data, () => resolve());
  });
}

/** Writes `data` and then destroys the connection without ending the response. */
export async function writeThenDrop(res: ServerResponse, data: string): Promise<void> {
  await writeFlushed(res, data);
  res.socket?.destroy();
  res.destroy();
}

/** An OpenAI-style error body. */
export function errorBody(message: string, type: string, code: string | null = null): object {
  return { error: { message, type, param: null, code } };
}

/** The default body of a scripted error reply with the given status. */
export function defaultErrorBody(status: number): object {
  if (status === 429) {
    return errorBody("fake-openai: rate limit exceeded", "rate_limit_exceeded", "rate_limit_exceeded");
  }
  if (status >= 500) {
    return errorBody(`fake-openai: scripted server error ${status}`, "server_error", "server_error");
  }
  return errorBody(`fake-openai: scripted error ${status}`, "invalid_request_error", "invalid_request");
}
