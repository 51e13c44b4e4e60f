/**
 * How tool calls answer, over an in-memory MCP connection: the caller's mistakes (an unknown
 * tool, arguments the input schema or the run's checks refuse, a malformed request) are
 * JSON-RPC invalid params (-32602), never an internal error; a failure while the tool runs is a
 * tool result the model can read; structured content out of its schema is our bug (-32603).
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { DossierError } from "../core/errors.ts";
import { createRunManager } from "../server/run-manager.ts";
import { createProject, type Project } from "../server/test-fixtures.ts";
import { createMcpServer } from "./server.ts";
import { defineTool, serveTools } from "./tool-dispatch.ts";

let project: Project | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  await project?.close();
  client = project = undefined;
});

async function connect(server: McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const c = new Client({ name: "dispatch-test", version: "1.0.0" });
  await c.connect(clientSide);
  return c;
}

async function rejection(call: Promise<unknown>): Promise<McpError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

/** A server with tools that fail in each way. */
function fakeServer(): McpServer {
  const server = new McpServer({ name: "fake", version: "1.0.0" }, { capabilities: { tools: {} } });
  const output = z.object({ n: z.number() });
  serveTools(server, [
    defineTool({
      name: "double",
      title: "Double",
      description: "doubles n",
      inputSchema: z.strictObject({ n: z.number().int().max(100) }),
      outputSchema: output,
      call: async ({ n }) => ({
        content: [{ type: "text", text: String(2 * n) }],
        structuredContent: { n: 2 * n },
      }),
    }),
    defineTool({
      name: "checks",
      title: "Checks",
      description: "refuses its input past the schema, or fails while running",
      inputSchema: z.strictObject({ what: z.string() }),
      outputSchema: output,
      call: async ({ what }) => {
        if (what === "input") throw new DossierError("INPUT_INVALID", "what: not this one");
        if (what === "missing") throw new DossierError("NOT_FOUND", "no such thing");
        if (what === "shape")
          return { content: [{ type: "text", text: "x" }], structuredContent: { n: "x" } };
        return { content: [{ type: "text", text: "ok" }], structuredContent: { n: 1 } };
      },
    }),
  ]);
  return server;
}

describe("tool calls", () => {
  it("answers the caller's mistakes with -32602 and failures while running as tool results", async () => {
    client = await connect(fakeServer());
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => [t.name, t.outputSchema?.required])).toEqual([
      ["double", ["n"]],
      ["checks", ["n"]],
    ]);
    expect(await client.callTool({ name: "double", arguments: { n: 4 } })).toMatchObject({
      structuredContent: { n: 8 },
    });

    const unknown = await rejection(client.callTool({ name: "triple", arguments: {} }));
    expect([unknown.code, unknown.data]).toEqual([ErrorCode.InvalidParams, { code: "NOT_FOUND" }]);
    // The message once, as the client shows it (not "MCP error -32602: MCP error -32602: …").
    expect(unknown.message).toBe('MCP error -32602: unknown tool "triple": the tools are double, checks');
    const schema = await rejection(client.callTool({ name: "double", arguments: { n: 1000 } }));
    expect([schema.code, schema.data]).toEqual([ErrorCode.InvalidParams, { code: "INPUT_INVALID" }]);
    expect(schema.message).toContain("invalid arguments for double: n:");
    const extra = await rejection(client.callTool({ name: "double", arguments: { n: 1, m: 2 } }));
    expect(extra.code).toBe(ErrorCode.InvalidParams);
    const checked = await rejection(client.callTool({ name: "checks", arguments: { what: "input" } }));
    expect([checked.code, checked.data]).toEqual([ErrorCode.InvalidParams, { code: "INPUT_INVALID" }]);
    expect(checked.message).toContain("what: not this one");
    // Arguments that are not an object: a malformed request, still the caller's (not -32603).
    const malformed = await rejection(
      client.request(
        { method: "tools/call", params: { name: "double", arguments: "n=4" } } as never,
        CallToolResultSchema,
      ),
    );
    expect(malformed.code).toBe(ErrorCode.InvalidParams);

    const missing = await client.callTool({ name: "checks", arguments: { what: "missing" } });
    expect(missing).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "error [NOT_FOUND]: no such thing" }],
    });
    const shape = await rejection(
      client.request(
        { method: "tools/call", params: { name: "checks", arguments: { what: "shape" } } },
        CallToolResultSchema,
      ),
    );
    expect(shape.code).toBe(ErrorCode.InternalError);
    expect(shape.message).toContain("checks answered out of its output schema");
  });

  it("refuses a research request the run's checks refuse with -32602, before any run is recorded", async () => {
    project = await createProject();
    client = await connect(
      createMcpServer({
        dossier: project.dossier,
        runs: createRunManager({ dossier: project.dossier, maxRuns: 1 }),
      }),
    );
    for (const name of ["deep_research", "research_start"]) {
      const error = await rejection(
        client.callTool({ name, arguments: { question: "How do heat pumps work?", strategy: "nosuch" } }),
      );
      expect([error.code, error.data]).toEqual([ErrorCode.InvalidParams, { code: "INPUT_INVALID" }]);
      expect(error.message).toContain('unknown strategy "nosuch"');
      const empty = await rejection(client.callTool({ name, arguments: { question: "" } }));
      expect(empty.message).toContain("question:");
    }
    expect(await project.dossier.runs.list()).toEqual([]);
    const status = await client.callTool({
      name: "research_status",
      arguments: { runId: "20990101-nosuch" },
    });
    expect(status).toMatchObject({ isError: true });
    expect((status.content as { text: string }[])[0]!.text).toContain("[NOT_FOUND]");
  });
});
