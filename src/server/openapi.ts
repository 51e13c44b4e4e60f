/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the same zod schemas that validate
 * the request bodies (JSON Schema 2020-12, which OpenAPI 3.1 uses as is).
 */

import { z } from "zod";
import {
  askBodySchema,
  askResponseSchema,
  corpusListResponseSchema,
  createRunBodySchema,
  errorResponseSchema,
  estimateResponseSchema,
  eventSchema,
  fetchBodySchema,
  fetchResponseSchema,
  runActionResponseSchema,
  runListResponseSchema,
  runResponseSchema,
  searchBodySchema,
  searchResponseSchema,
  strategyListResponseSchema,
} from "./schemas.ts";

type Json = Record<string, unknown>;

/** The component schemas: request bodies (input side) and responses (output side). */
const COMPONENTS: Record<string, { schema: z.ZodType; io: "input" | "output" }> = {
  CreateRunBody: { schema: createRunBodySchema, io: "input" },
  AskBody: { schema: askBodySchema, io: "input" },
  SearchBody: { schema: searchBodySchema, io: "input" },
  FetchBody: { schema: fetchBodySchema, io: "input" },
  Error: { schema: errorResponseSchema, io: "output" },
  RunResponse: { schema: runResponseSchema, io: "output" },
  RunList: { schema: runListResponseSchema, io: "output" },
  Event: { schema: eventSchema, io: "output" },
  RunAction: { schema: runActionResponseSchema, io: "output" },
  SearchResponse: { schema: searchResponseSchema, io: "output" },
  FetchResponse: { schema: fetchResponseSchema, io: "output" },
  AskResponse: { schema: askResponseSchema, io: "output" },
  StrategyList: { schema: strategyListResponseSchema, io: "output" },
  CorpusList: { schema: corpusListResponseSchema, io: "output" },
  EstimateResponse: { schema: estimateResponseSchema, io: "output" },
};

/** The JSON Schema of one component. */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as Json;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ "application/json": { schema: ref(name) } });

const ERROR_TEXT: Record<number, string> = {
  400: "the request is invalid (the message names the field)",
  401: "missing or wrong token",
  404: "no such run or report",
  409: "the run is not in a state that allows this",
  413: "the request body is too large",
  422: "the server's configuration cannot serve this (no model, no search provider)",
  429: "too many runs at once",
  501: "not available in this version",
  502: "a provider or tool failed",
};

/** One operation. */
function operation(
  summary: string,
  options: {
    body?: string;
    ok: { status: number; description: string; content?: Json };
    errors?: number[];
    parameters?: Json[];
    tag: string;
  },
): Json {
  const responses: Json = {
    [options.ok.status]: {
      description: options.ok.description,
      ...(options.ok.content ? { content: options.ok.content } : {}),
    },
  };
  for (const status of [401, ...(options.errors ?? [])]) {
    responses[status] = { description: ERROR_TEXT[status] ?? "error", content: json("Error") };
  }
  return {
    summary,
    tags: [options.tag],
    ...(options.parameters ? { parameters: options.parameters } : {}),
    ...(options.body ? { requestBody: { required: true, content: json(options.body) } } : {}),
    responses,
  };
}

const runId = {
  name: "id",
  in: "path",
  required: true,
  description: "run id or unique prefix",
  schema: { type: "string" },
};
const format = {
  name: "format",
  in: "path",
  required: true,
  description: "report format",
  schema: { type: "string", enum: ["md", "html", "json"] },
};

/** The OpenAPI document. */
export function openApiDocument(options: { version: string }): Json {
  const schemas = Object.fromEntries(
    Object.entries(COMPONENTS).map(([name, c]) => [name, jsonSchema(c.schema, c.io)]),
  );
  const R = "runs";
  return {
    openapi: "3.1.0",
    info: {
      title: "Dossier API",
      version: options.version,
      description:
        "Research runs with a live audit trail (SSE), cited reports in Markdown, HTML and JSON, short answers, web search and page reading. Every request but /openapi.json and /health carries Authorization: Bearer <token> (the token is in the server-token file of the data directory).",
    },
    components: {
      schemas,
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
    },
    security: [{ bearerAuth: [] }],
    paths: {
      "/health": {
        get: {
          summary: "liveness",
          security: [],
          tags: ["server"],
          responses: { 200: { description: "ok" } },
        },
      },
      "/openapi.json": {
        get: {
          summary: "this document",
          security: [],
          tags: ["server"],
          responses: { 200: { description: "the OpenAPI document" } },
        },
      },
      "/v1/runs": {
        post: operation("start a research run", {
          tag: R,
          body: "CreateRunBody",
          ok: {
            status: 201,
            description: "the run, once its request is checked",
            content: json("RunResponse"),
          },
          errors: [400, 413, 422, 429],
        }),
        get: operation("list stored runs, newest first", {
          tag: R,
          parameters: [
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 1000 } },
            {
              name: "status",
              in: "query",
              schema: {
                type: "string",
                enum: ["running", "completed", "failed", "cancelled", "interrupted"],
              },
            },
          ],
          ok: { status: 200, description: "runs", content: json("RunList") },
          errors: [400],
        }),
      },
      "/v1/runs/{id}": {
        get: operation("one run", {
          tag: R,
          parameters: [runId],
          ok: { status: 200, description: "the run", content: json("RunResponse") },
          errors: [404],
        }),
      },
      "/v1/runs/{id}/events": {
        get: operation("the run's events as Server-Sent Events (id = seq), ending after run-end", {
          tag: R,
          parameters: [
            runId,
            {
              name: "Last-Event-ID",
              in: "header",
              description: "resume after this seq",
              schema: { type: "integer" },
            },
            { name: "after", in: "query", description: "resume after this seq", schema: { type: "integer" } },
          ],
          ok: {
            status: 200,
            description: "event stream",
            content: { "text/event-stream": { schema: ref("Event") } },
          },
          errors: [404],
        }),
      },
      "/v1/runs/{id}/cancel": {
        post: operation("cancel a run under way (it stays resumable)", {
          tag: R,
          parameters: [runId],
          ok: { status: 202, description: "cancelling", content: json("RunAction") },
          errors: [404, 409],
        }),
      },
      "/v1/runs/{id}/resume": {
        post: operation("resume an interrupted or cancelled run with the same id", {
          tag: R,
          parameters: [runId],
          ok: { status: 202, description: "the resumed run", content: json("RunResponse") },
          errors: [404, 409, 429],
        }),
      },
      "/v1/runs/{id}/report/{format}": {
        get: operation("download the run's report", {
          tag: R,
          parameters: [runId, format],
          ok: {
            status: 200,
            description: "the report",
            content: {
              "text/markdown": { schema: { type: "string" } },
              "text/html": { schema: { type: "string" } },
              "application/json": { schema: { type: "object" } },
            },
          },
          errors: [400, 404],
        }),
      },
      "/v1/ask": {
        post: operation("answer a deep-search question briefly, with citations (waits for the answer)", {
          tag: "tools",
          body: "AskBody",
          ok: { status: 200, description: "the answer", content: json("AskResponse") },
          errors: [400, 413, 422, 429, 501],
        }),
      },
      "/v1/search": {
        post: operation("one web search, a paper search (arxiv, openalex) or a local-corpus search", {
          tag: "tools",
          body: "SearchBody",
          ok: { status: 200, description: "results", content: json("SearchResponse") },
          errors: [400, 404, 413, 422, 502],
        }),
      },
      "/v1/fetch": {
        post: operation("read one page as clean text, or for a goal with the reader model", {
          tag: "tools",
          body: "FetchBody",
          ok: { status: 200, description: "the page or its reading", content: json("FetchResponse") },
          errors: [400, 413, 422, 502],
        }),
      },
      "/v1/strategies": {
        get: operation("the strategies a run can use, with what each needs", {
          tag: "catalog",
          ok: { status: 200, description: "strategies", content: json("StrategyList") },
        }),
      },
      "/v1/corpora": {
        get: operation("the indexed local corpora (see `dossier index`)", {
          tag: "catalog",
          ok: { status: 200, description: "corpus names", content: json("CorpusList") },
        }),
      },
      "/v1/estimate": {
        post: operation(
          "the dry estimate of a run: model calls, tool calls, tokens and cost (runs nothing)",
          {
            tag: "catalog",
            body: "CreateRunBody",
            ok: { status: 200, description: "the estimate", content: json("EstimateResponse") },
            errors: [400, 413, 422],
          },
        ),
      },
      "/mcp": {
        post: {
          summary:
            "Model Context Protocol over streamable HTTP (JSON-RPC; tools deep_research, ask, search, fetch)",
          tags: ["mcp"],
          requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } },
          responses: {
            200: { description: "a JSON-RPC answer or an event stream" },
            401: { description: ERROR_TEXT[401], content: json("Error") },
          },
        },
      },
    },
  };
}
