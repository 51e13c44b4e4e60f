/**
 * How the MCP server lists and calls its tools. Each tool declares an `inputSchema` and an
 * `outputSchema` and answers with `structuredContent` next to its text. Calls are dispatched
 * here rather than by the SDK's `McpServer`, which answers every failure as a tool result:
 *
 * - an unknown tool, arguments its input schema refuses, and arguments the run's own checks
 *   refuse (INPUT_INVALID: an unknown strategy, bad strategy options) are the caller's invalid
 *   params, JSON-RPC error -32602 with the Dossier code in `data`;
 * - a malformed request (arguments that are not an object) is -32602 too, as the SDK's server
 *   answers it, where the request schema's own check would make it an internal error (-32603);
 * - anything that fails while the tool runs (no such corpus, a provider error, a run that
 *   failed) is a tool result with `isError`, `error [CODE]: message`, which the model reads;
 * - structured content that does not match the tool's output schema is our bug: -32603.
 *
 * A tool that can run as an MCP task (`deep_research`) is listed with `taskSupport: optional`
 * and is called as one when the request asks for a task.
 */

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolRequest,
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  McpError,
  type ServerNotification,
  type ServerRequest,
  type ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { isDossierError } from "../core/errors.ts";
import { apiMessage } from "../server/errors.ts";
import { describeIssue } from "../server/schemas.ts";
import { errorResult } from "./context.ts";

/** What a tool handler gets besides its arguments. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A tool: its listing and its handlers. */
export interface ToolDefinition<
  Input extends z.ZodType<Record<string, unknown>> = z.ZodType<Record<string, unknown>>,
> {
  name: string;
  title: string;
  description: string;
  inputSchema: Input;
  outputSchema: z.ZodObject;
  annotations?: ToolAnnotations;
  /** Runs a call to its end. */
  call(args: z.output<Input>, extra: ToolExtra): Promise<CallToolResult>;
  /** Starts a call as an MCP task and answers with the task at once (tools that take long). */
  callAsTask?(args: z.output<Input>, extra: ToolExtra): Promise<CreateTaskResult>;
}

/** Defines a tool (typed by its input schema). */
export function defineTool<Input extends z.ZodType<Record<string, unknown>>>(
  tool: ToolDefinition<Input>,
): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

/** `tools/call` as the SDK's server checks it (the name, an object of arguments); nothing more here. */
const CALL_REQUEST = z.looseObject({ method: z.literal("tools/call"), params: z.unknown() });

/**
 * A JSON-RPC error as the SDK sends it (`code`, `message`, `data`), without the "MCP error
 * <code>:" that `McpError` puts in front of its message (clients put it there themselves).
 */
class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
}

const invalidParams = (message: string, data: Record<string, unknown> = { code: "INPUT_INVALID" }) =>
  new RpcError(ErrorCode.InvalidParams, message, data);

const notCalled = () => {
  throw new McpError(ErrorCode.InternalError, "tools are called through the dispatcher");
};

/** Lists `tools` on `server` and answers `tools/call` for them. */
export function serveTools(server: McpServer, tools: readonly ToolDefinition[]): void {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  for (const tool of tools) {
    const config = {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
    };
    // The SDK lists them (input and output schemas as JSON Schema, task support); calls come here.
    if (tool.callAsTask) {
      server.experimental.tasks.registerToolTask(
        tool.name,
        { ...config, execution: { taskSupport: "optional" } },
        { createTask: notCalled, getTask: notCalled, getTaskResult: notCalled } as never,
      );
    } else server.registerTool(tool.name, config as never, notCalled as never);
  }

  const dispatch = async (params: CallToolRequest["params"], extra: ToolExtra) => {
    const tool = byName.get(params.name);
    if (!tool) {
      throw invalidParams(`unknown tool "${params.name}": the tools are ${[...byName.keys()].join(", ")}`, {
        code: "NOT_FOUND",
      });
    }
    const parsed = tool.inputSchema.safeParse(params.arguments ?? {});
    if (!parsed.success) {
      throw invalidParams(`invalid arguments for ${tool.name}: ${describeIssue(parsed.error as z.ZodError)}`);
    }
    try {
      if (params.task) {
        if (!tool.callAsTask)
          throw new RpcError(ErrorCode.MethodNotFound, `tool ${tool.name} does not run as a task`);
        return await tool.callAsTask(parsed.data, extra);
      }
      const result = await tool.call(parsed.data, extra);
      if (!result.isError) {
        const output = tool.outputSchema.safeParse(result.structuredContent);
        if (!output.success) {
          throw new RpcError(
            ErrorCode.InternalError,
            `${tool.name} answered out of its output schema: ${describeIssue(output.error)}`,
          );
        }
      }
      return result;
    } catch (error) {
      if (error instanceof McpError || error instanceof RpcError) throw error;
      if (isDossierError(error) && error.code === "INPUT_INVALID") {
        throw invalidParams(`invalid arguments for ${tool.name}: ${apiMessage(error)}`);
      }
      return errorResult(error);
    }
  };
  server.server.setRequestHandler(CALL_REQUEST, (request, extra) =>
    dispatch((request as unknown as CallToolRequest).params, extra),
  );
}
