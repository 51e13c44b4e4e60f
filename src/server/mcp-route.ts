/**
 * MCP over streamable HTTP, mounted on the server at `/mcp` (behind the same token and the same
 * Host/Origin checks as every route): one MCP server and transport per session, keyed by the
 * `Mcp-Session-Id` header. The runs started over MCP, and the tasks of `deep_research`, are
 * shared by the sessions: a client that comes back in a new session finds its run by id.
 */

import { randomUUID } from "node:crypto";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context } from "hono";
import type { McpContext } from "../mcp/context.ts";
import { createResearchJobs, type ResearchJobs } from "../mcp/research-jobs.ts";
import { createMcpServer } from "../mcp/server.ts";
import { createRouter, errorResponses } from "./route-kit.ts";

interface Session {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
}

/** The `/mcp` route and a way to close its sessions. */
export interface McpRoute {
  app: OpenAPIHono;
  /** Open sessions. */
  sessions(): number;
  close(): Promise<void>;
}

const rpcError = (message: string) => ({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });

const JsonRpcError = z
  .object({
    jsonrpc: z.literal("2.0"),
    error: z.object({ code: z.number().int(), message: z.string() }),
    id: z.union([z.string(), z.number(), z.null()]),
  })
  .openapi("JsonRpcError");
const rpcErrorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: JsonRpcError } },
});
const sessionHeader = (description: string) =>
  z.object({ "mcp-session-id": z.string().optional().openapi({ description }) });
/** A JSON-RPC message or batch; the MCP SDK reads and checks it. */
const MESSAGE = {
  type: "object",
  description: "a JSON-RPC request, notification or response, or a batch of them",
} as const;

const postMessage = createRoute({
  method: "post",
  path: "/",
  operationId: "postMcpMessage",
  tags: ["mcp"],
  summary: "Send an MCP message",
  description:
    "Model Context Protocol over streamable HTTP (tools deep_research, research_start, research_status, research_result, research_cancel, ask, search, fetch; reports as resources). Start with an `initialize` request without a session id; its answer carries the `Mcp-Session-Id` header every later request sends.",
  request: {
    headers: sessionHeader("the session, after initialize"),
    body: { required: true, content: { "application/json": { schema: MESSAGE } } },
  },
  responses: {
    200: {
      description: "the JSON-RPC answer, as JSON or as an event stream",
      content: {
        "application/json": { schema: MESSAGE },
        "text/event-stream": { schema: { type: "string" } },
      },
    },
    202: { description: "a notification or response was accepted" },
    400: rpcErrorResponse("no session and not an initialize request"),
    404: rpcErrorResponse("unknown or closed session"),
    ...errorResponses(413),
  },
});

const openStream = createRoute({
  method: "get",
  path: "/",
  operationId: "openMcpStream",
  tags: ["mcp"],
  summary: "Listen for server messages of an MCP session",
  request: { headers: sessionHeader("the session (required)") },
  responses: {
    200: {
      description: "server-to-client messages as an event stream",
      content: { "text/event-stream": { schema: { type: "string" } } },
    },
    400: rpcErrorResponse("no session id"),
    404: rpcErrorResponse("unknown or closed session"),
    ...errorResponses(),
  },
});

const closeSessionRoute = createRoute({
  method: "delete",
  path: "/",
  operationId: "closeMcpSession",
  tags: ["mcp"],
  summary: "End an MCP session",
  request: { headers: sessionHeader("the session (required)") },
  responses: {
    200: { description: "the session is closed" },
    400: rpcErrorResponse("no session id"),
    404: rpcErrorResponse("unknown or closed session"),
    ...errorResponses(),
  },
});

/**
 * Builds the `/mcp` route; at most `maxSessions` sessions are kept (the oldest is closed; its
 * runs go on). `context` is asked for when a session opens.
 */
export function mcpRoute(
  context: () => McpContext,
  options: { maxSessions?: number; heartbeatMs?: number } = {},
): McpRoute {
  const maxSessions = options.maxSessions ?? 32;
  const sessions = new Map<string, Session>();
  let jobs: ResearchJobs | null = null;
  const sessionContext = (): McpContext => {
    const base = {
      ...context(),
      ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
    };
    jobs ??= createResearchJobs(base);
    return { ...base, jobs };
  };
  const app = createRouter();

  const closeSession = async (session: Session) => {
    if (session.transport.sessionId) sessions.delete(session.transport.sessionId);
    await session.server.close().catch(() => {});
  };

  const handle = async (c: Context): Promise<Response> => {
    const sessionId = c.req.header("mcp-session-id");
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) return c.json(rpcError("unknown or closed MCP session; initialize a new one"), 404);
      return session.transport.handleRequest(c.req.raw);
    }
    if (c.req.method !== "POST")
      return c.json(rpcError("no MCP session: send an initialize request first"), 400);
    if (sessions.size >= maxSessions) {
      const oldest = sessions.values().next().value;
      if (oldest) await closeSession(oldest);
    }
    const session: Session = {
      server: createMcpServer(sessionContext()),
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, session);
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
        },
      }),
    };
    session.transport.onclose = () => {
      if (session.transport.sessionId) sessions.delete(session.transport.sessionId);
    };
    await session.server.connect(session.transport);
    const response = await session.transport.handleRequest(c.req.raw);
    // A first request that did not open a session (not an initialize) leaves nothing behind.
    if (!session.transport.sessionId) await closeSession(session);
    return response;
  };

  app.openapi(postMessage, handle);
  app.openapi(openStream, handle);
  app.openapi(closeSessionRoute, handle);
  // Other methods: the transport answers them (405).
  app.all("/", handle);

  return {
    app,
    sessions: () => sessions.size,
    async close() {
      await Promise.all([...sessions.values()].map(closeSession));
      jobs?.close();
    },
  };
}
