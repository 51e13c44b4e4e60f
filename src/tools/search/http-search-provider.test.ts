/**
 * A provider is a table entry and nothing else: a made-up provider, described only by an entry,
 * served by a loopback server in its own small JSON format, searches, reports failures and runs
 * through the `web_search` tool like the built-in ones.
 */

import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { callContext, rejectionOf } from "../../../test/fake-search/provider-test-kit.ts";
import { instantClock } from "../../../test/scripted/clocks.ts";
import { DEFAULT_RETRY_POLICY } from "../../core/retry.ts";
import { ToolGateway } from "../gateway.ts";
import { type SearchRequest, searchRequestSchema } from "../types.ts";
import { createHttpSearchProvider, defineSearchProvider } from "./http-search-provider.ts";
import { countParam, languageParam, queryParam, timeRangeParam } from "./request-params.ts";
import { webSearch } from "./web-search.ts";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

/**
 * "Hoot", a made-up provider: `GET /v2/find?term=…&limit=…&fresh=…&lang=…&key=<key>`, at most
 * 5 results, answered with `{ hits: [{ name, link, blurb, when }] }`; 451 means the account
 * has no search plan.
 */
const HOOT = defineSearchProvider({
  name: "hoot",
  baseUrl: "https://api.hoot.invalid",
  baseUrlSetting: "HOOT_BASE_URL",
  method: "GET",
  path: "/v2/find",
  credential: { setting: "HOOT_KEY", query: "key" },
  maxResults: 5,
  params: {
    term: queryParam,
    limit: countParam,
    fresh: timeRangeParam({ day: "1d", week: "7d", month: "31d", year: "366d" }),
    lang: languageParam((language) => language.toUpperCase()),
    safe: "off",
  },
  answer: z.object({
    hits: z.array(
      z.object({
        name: z.string().nullish(),
        link: z.string().nullish(),
        blurb: z.string(),
        when: z.number(),
      }),
    ),
  }),
  results: ({ hits }) =>
    hits.map((h) => ({
      title: h.name,
      url: h.link,
      snippet: h.blurb,
      published: new Date(h.when * 1000).toISOString(),
    })),
  misconfigured: { 451: "enable search in the Hoot account" },
});

/** The same provider asked by POST with a header key, to see the body as sent. */
const HOOT_POST = defineSearchProvider({
  ...HOOT,
  method: "POST",
  credential: { setting: "HOOT_KEY", header: "x-hoot-key", prefix: "Key " },
  headers: { "x-hoot-client": "dossier" },
});

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const HITS = [
  {
    name: "Owls &amp; <b>night</b>",
    link: "https://owls.example/a",
    blurb: "Owls hunt at night.",
    when: 1_705_276_800,
  },
  { name: null, link: "https://owls.example/b", blurb: "No name.", when: 1_700_000_000 },
  { name: "Script", link: "javascript:alert(1)", blurb: "dropped", when: 0 },
  { name: "Third", link: "https://owls.example/c", blurb: "three", when: 0 },
  { name: "Fourth", link: "https://owls.example/d", blurb: "four", when: 0 },
];

let server: Server;
let base: string;
let seen: Seen[];
/** The next answer: status and body (default: 200 with HITS, cut to `limit`). */
let next: { status: number; body: string } | undefined;

beforeEach(async () => {
  seen = [];
  next = undefined;
  server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += String(chunk);
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const limit = Number(
      url.searchParams.get("limit") ?? (JSON.parse(body || "{}") as { limit?: number }).limit,
    );
    const answer = next ?? { status: 200, body: JSON.stringify({ hits: HITS.slice(0, limit) }) };
    res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hoot/`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const request = (over: Partial<SearchRequest> = {}) =>
  searchRequestSchema.parse({ query: "owls at night", topK: 3, timeRange: "week", language: "en", ...over });
const hoot = (apiKey = "hoot-key", entry = HOOT) =>
  createHttpSearchProvider(entry, { apiKey, baseUrl: base, now: () => NOW });

describe("a provider described only by a table entry", () => {
  it("sends the entry's parameters in order with the key as a query parameter, and reads its answer", async () => {
    const results = await hoot().search(request(), callContext());
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: "GET",
      url: "/hoot/v2/find?term=owls+at+night&limit=3&fresh=7d&lang=EN&safe=off&key=hoot-key",
      body: "",
    });
    expect(seen[0]!.headers.accept).toBe("application/json");
    expect(results).toEqual([
      {
        title: "Owls & night",
        url: "https://owls.example/a",
        snippet: "Owls hunt at night.",
        publishedAt: "2024-01-15T00:00:00.000Z",
      },
      {
        title: "https://owls.example/b",
        url: "https://owls.example/b",
        snippet: "No name.",
        publishedAt: "2023-11-14T22:13:20.000Z",
      },
    ]);
  });

  it("caps the count at the entry's maxResults, leaves out what the request does not ask, cuts to topK", async () => {
    const results = await hoot().search(
      request({ topK: 9, timeRange: undefined, language: undefined }),
      callContext(),
    );
    expect(seen[0]!.url).toBe("/hoot/v2/find?term=owls+at+night&limit=5&safe=off&key=hoot-key");
    expect(results.map((r) => r.url)).toEqual([
      "https://owls.example/a",
      "https://owls.example/b",
      "https://owls.example/c",
      "https://owls.example/d",
    ]);
  });

  it("posts the same parameters as a JSON body in the entry's order, with a header key and fixed headers", async () => {
    await hoot("k2", HOOT_POST).search(request(), callContext());
    expect(seen[0]).toMatchObject({
      method: "POST",
      url: "/hoot/v2/find",
      body: '{"term":"owls at night","limit":3,"fresh":"7d","lang":"EN","safe":"off"}',
    });
    expect(seen[0]!.headers).toMatchObject({
      "x-hoot-key": "Key k2",
      "x-hoot-client": "dossier",
      "content-type": "application/json",
      accept: "application/json",
    });
  });

  it("without its key asks nothing and names the entry's variable", async () => {
    const error = await rejectionOf(hoot("").search(request(), callContext()));
    expect(error).toMatchObject({
      code: "PROVIDER_NOT_CONFIGURED",
      message: "hoot: no API key; set HOOT_KEY",
    });
    expect(seen).toHaveLength(0);
  });

  it("reports an answer of the wrong shape, a refused key, a rate limit and its own misconfiguration status", async () => {
    next = { status: 200, body: JSON.stringify({ hits: [{ name: "x", link: "https://x/" }] }) };
    expect(await rejectionOf(hoot().search(request(), callContext()))).toMatchObject({
      code: "PROVIDER_ERROR",
      retryable: false,
      message: expect.stringMatching(/^hoot: unexpected answer format \(hits\.0\.blurb: /),
    });
    next = { status: 401, body: '{"error":"bad key"}' };
    expect(await rejectionOf(hoot().search(request(), callContext()))).toMatchObject({
      code: "PROVIDER_NOT_CONFIGURED",
      details: { provider: "hoot", status: 401 },
    });
    next = { status: 429, body: "{}" };
    expect(await rejectionOf(hoot().search(request(), callContext()))).toMatchObject({
      code: "RATE_LIMITED",
    });
    next = { status: 451, body: "{}" };
    expect(await rejectionOf(hoot().search(request(), callContext()))).toMatchObject({
      code: "PROVIDER_NOT_CONFIGURED",
      retryable: false,
      message: `hoot: HTTP 451 from ${base} — enable search in the Hoot account`,
    });
  });

  it("serves the web_search tool through the gateway under its own name and endpoint", async () => {
    const gateway = new ToolGateway({
      clock: instantClock(),
      defaults: { retry: { ...DEFAULT_RETRY_POLICY, maxRetries: 0 }, cacheTtlMs: 0 },
    });
    const outcome = await webSearch({ query: "owls", topK: 1 }, { gateway, providers: [hoot()] });
    expect(outcome).toMatchObject({ ok: true, provider: "hoot" });
    expect(outcome.ok && outcome.value.map((r) => r.url)).toEqual(["https://owls.example/a"]);
    expect(hoot().endpoint).toBe(base);
  });
});
