/**
 * The tool endpoints: ask (a short answer), search and fetch, through the Dossier's gateway
 * (mounted under `/v1`).
 */

import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiServices } from "./api-services.ts";
import { streamAsk, wantsEventStream } from "./ask-stream.ts";
import { AskBody, AskResponse, FetchBody, FetchResponse, SearchBody, SearchResponse } from "./components.ts";
import { bodyRoute, createRouter, errorResponses, jsonResponse } from "./route-kit.ts";
import { fetchWith, searchWith } from "./tool-calls.ts";

const ask = bodyRoute(
  {
    method: "post",
    path: "/ask",
    operationId: "ask",
    tags: ["tools"],
    summary: "Answer a question briefly, with citations",
    description:
      "A deep-search run (smtl by default) that ends with a short, cited answer; the request waits for it. Counts against the server's run limit. With `Accept: text/event-stream` the answer comes as Server-Sent Events: the run's events as they happen (`event` its type, `data` the event as JSON), a comment line while nothing happens, then one `answer` event (this route's JSON answer) or one `error` event (`{ error: { code, message } }`). A request refused before the run starts is an ordinary error response.",
    responses: {
      200: {
        description: "the answer and its evidence, or the run's events then the answer",
        content: {
          "application/json": { schema: AskResponse },
          "text/event-stream": {
            schema: z.string().describe("run events, then an `answer` or `error` event"),
          },
        },
      },
      ...errorResponses(400, 413, 422, 429, 501),
    },
  },
  { schema: AskBody, description: "the question and how to search for its answer" },
);

const search = bodyRoute(
  {
    method: "post",
    path: "/search",
    operationId: "search",
    tags: ["tools"],
    summary: "Search the web, scholarly papers or a local corpus",
    description:
      "One web search through the configured providers (or one named provider), a paper search with provider arxiv or openalex, or a search of an indexed local corpus with provider local. Web and paper results outside the source filter (the request's `sourceFilter`, else the server's configured one) are dropped; providers that take domain or date parameters get them.",
    responses: {
      200: jsonResponse("the results", SearchResponse),
      ...errorResponses(400, 404, 413, 422, 502),
    },
  },
  { schema: SearchBody, description: "the query and where to search" },
);

const fetchPage = bodyRoute(
  {
    method: "post",
    path: "/fetch",
    operationId: "fetchPage",
    tags: ["tools"],
    summary: "Read one web page",
    description:
      "The page as clean text, or, with a goal, verbatim evidence for that goal extracted by the reader model. Private network addresses are refused unless the server allows them. A URL or redirect outside the source filter (the request's `sourceFilter`, else the server's configured one) is refused with 403 SOURCE_FILTERED and never requested.",
    responses: {
      200: jsonResponse("the page or its reading", FetchResponse),
      ...errorResponses(400, 403, 413, 422, 502),
    },
  },
  { schema: FetchBody, description: "the URL and, optionally, what to read it for" },
);

/** The `/ask`, `/search` and `/fetch` routes (mounted under `/v1`). */
export function toolsRoutes(services: () => ApiServices): OpenAPIHono {
  const app = createRouter();

  app.openapi(ask, async (c) => {
    const body = c.req.valid("json");
    if (wantsEventStream(c))
      return streamAsk(
        c,
        (onEvent) => services().runs.ask(body, c.req.raw.signal, onEvent),
        services().keepAliveMs,
      );
    return c.json(await services().runs.ask(body, c.req.raw.signal), 200);
  });

  app.openapi(search, async (c) => {
    const { dossier, env } = services();
    return c.json(await searchWith(dossier, c.req.valid("json"), { env }), 200);
  });

  app.openapi(fetchPage, async (c) => c.json(await fetchWith(services().dossier, c.req.valid("json")), 200));

  return app;
}
