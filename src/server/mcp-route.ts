/**
 * MCP over streamable HTTP, mounted on the server at `/mcp` (behind the same token): one MCP
 * server and transport per session, keyed by the `Mcp-Session-Id` header.
 */

import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import type { McpContext } from "../mcp/context.ts";
import { createMcpServer } from "../mcp/server.ts";

interface Session {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
}

/** The `/mcp` route and a way to close its sessions. */
export interface McpRoute {
  app: Hono;
  /** Open sessions. */
  sessions(): number;
  close(): Promise<void>;
}

const rpcError = (message: string) => ({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });

/** Builds the `/mcp` route; at most `maxSessions` sessions are kept (the oldest is closed). */
export function mcpRoute(context: McpContext, options: { maxSessions?: number } = {}): McpRoute {
  const maxSessions = options.maxSessions ?? 32;
  const sessions = new Map<string, Session>();
  const app = new Hono();

  const closeSession = async (session: Session) => {
    if (session.transport.sessionId) sessions.delete(session.transport.sessionId);
    await session.server.close().catch(() => {});
  };

  app.all("/", async (c) => {
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
      server: createMcpServer(context),
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
  });

  return {
    app,
    sessions: () => sessions.size,
    async close() {
      await Promise.all([...sessions.values()].map(closeSession));
    },
  };
}
