/**
 * The source filter on the API's one-off tools and its ask, against loopback servers that count
 * what they receive: `POST /v1/fetch` refuses a URL (or a redirect) outside the filter with 403
 * SOURCE_FILTERED and never requests it, before any model call; `POST /v1/search` drops results
 * outside it and gives the provider its parameters; the configured filter is the default and a
 * request's `{}` lifts it; the MCP `fetch` and `search` tools (same bodies) do the same; an ask
 * searches and reads within the filter it is given.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FakeSearch, startFakeSearch } from "../../test/fake-search/index.ts";
import { type FakeWeb, startFakeWeb } from "../../test/fake-web/index.ts";
import { type ResearchWorld, searchPages, startResearchWorld } from "../../test/research/world.ts";
import type { Config } from "../runtime/config.ts";
import { createDossier, type Dossier } from "../runtime/dossier.ts";
import { statusOf } from "./errors.ts";
import { type RunningServer, startServer } from "./listen.ts";
import { createProject, type Project } from "./test-fixtures.ts";

let web: FakeWeb;
beforeAll(async () => {
  web = await startFakeWeb();
});
afterAll(() => web.close());

let project: Project | undefined;
let server: RunningServer | undefined;
let fake: FakeSearch | undefined;
let client: Client | undefined;
let world: ResearchWorld | undefined;
let dossier: Dossier | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  await project?.close();
  await fake?.close();
  await dossier?.close();
  await world?.close();
  client = server = project = fake = dossier = world = undefined;
});

async function start(config: Partial<Config> = {}) {
  project = await createProject({ config: { allowPrivateNetwork: true, ...config } });
  server = await startServer({ dossier: project.dossier, port: 0 });
}

const post = (path: string, body: unknown) =>
  fetch(`${server!.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${server!.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/** Host names the fake web was asked for since request `from`. */
const hostsAsked = (from: number) => web.requests.slice(from).map((r) => r.host.replace(/:\d+$/, ""));

describe("POST /v1/fetch under a source filter", () => {
  it("SOURCE_FILTERED is a 403", () => {
    expect(statusOf("SOURCE_FILTERED")).toBe(403);
  });

  it("refuses a URL outside the allow list with 403 and never requests it, with or without a goal", async () => {
    await start();
    const before = web.requests.length;
    for (const goal of [{}, { goal: "the article's topic" }]) {
      const refused = await post("/v1/fetch", {
        url: web.url("/article"),
        sourceFilter: { domains: ["allowed.test"] },
        ...goal,
      });
      // With a goal and no reader model configured, a check made later would answer 422.
      expect(refused.status).toBe(403);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("SOURCE_FILTERED");
      expect(body.error.message).toContain("127.0.0.1 is not under an allowed domain (allowed.test)");
    }
    expect(web.requests.length).toBe(before);
  });

  it("refuses a redirect to a denied host before following it", async () => {
    await start();
    const before = web.requests.length;
    const to = `http://localhost:${web.port}/article`;
    const refused = await post("/v1/fetch", {
      url: web.url(`/redirect?to=${encodeURIComponent(to)}`),
      sourceFilter: { excludeDomains: ["localhost"] },
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("SOURCE_FILTERED");
    // Only the redirect itself was asked; the denied host never was (not even resolved).
    expect(web.requests.slice(before).map((r) => r.path)).toEqual([`/redirect?to=${encodeURIComponent(to)}`]);
    expect(hostsAsked(before)).toEqual(["127.0.0.1"]);
  });

  it("applies the configured filter by default; a request's empty filter lifts it", async () => {
    await start({ sourceFilter: { domains: ["allowed.test"] } });
    const before = web.requests.length;
    const refused = await post("/v1/fetch", { url: web.url("/article") });
    expect(refused.status).toBe(403);
    expect(web.requests.length).toBe(before);
    const lifted = await post("/v1/fetch", { url: web.url("/article"), sourceFilter: {} });
    expect(lifted.status).toBe(200);
    expect(hostsAsked(before)).toEqual(["127.0.0.1"]);
  });

  it("refuses a bad filter with 400 before any request", async () => {
    await start();
    const before = web.requests.length;
    const bad = await post("/v1/fetch", {
      url: web.url("/article"),
      sourceFilter: { domains: ["https://x.org/path"] },
    });
    expect(bad.status).toBe(400);
    expect(web.requests.length).toBe(before);
  });
});

const RESULTS = [
  { title: "Allowed", url: "https://www.allowed.test/a", snippet: "Tidal power output rose." },
  { title: "Denied", url: "https://denied.test/b", snippet: "Tidal turbines were installed." },
  { title: "Other", url: "https://other.test/c", snippet: "Tidal range is large here." },
];

describe("POST /v1/search under a source filter", () => {
  it("drops results outside the filter and gives the provider its operators", async () => {
    fake = await startFakeSearch({ results: RESULTS });
    await start({ search: ["searxng"], searxngUrl: fake.baseUrl("searxng") });
    const denied = await post("/v1/search", {
      query: "tidal power",
      sourceFilter: { excludeDomains: ["denied.test"] },
    });
    expect(denied.status).toBe(200);
    const found = (await denied.json()) as { results: { url: string }[] };
    expect(found.results.map((r) => r.url)).toEqual(["https://www.allowed.test/a", "https://other.test/c"]);
    expect(fake.requestsFor("searxng")[0]!.query.q).toBe("tidal power -site:denied.test");

    const allowed = await post("/v1/search", {
      query: "tidal power",
      sourceFilter: { domains: ["allowed.test"] },
    });
    expect(((await allowed.json()) as { results: { url: string }[] }).results.map((r) => r.url)).toEqual([
      "https://www.allowed.test/a",
    ]);
    // A local search takes no source filter (local documents are never filtered).
    const local = await post("/v1/search", {
      query: "defrost",
      provider: "local",
      corpus: "notes",
      sourceFilter: { domains: ["allowed.test"] },
    });
    expect(local.status).toBe(400);
  });
});

describe("the MCP fetch and search tools under a source filter", () => {
  it("refuse a denied URL without requesting it, and drop denied results", async () => {
    fake = await startFakeSearch({ results: RESULTS });
    await start({ search: ["searxng"], searxngUrl: fake.baseUrl("searxng") });
    client = new Client({ name: "dossier-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server!.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${server!.token}` } },
      }),
    );
    const before = web.requests.length;
    const refused = await client.callTool({
      name: "fetch",
      arguments: { url: web.url("/article"), sourceFilter: { domains: ["allowed.test"] } },
    });
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0]!.text).toContain("[SOURCE_FILTERED]");
    expect(web.requests.length).toBe(before);
    const found = await client.callTool({
      name: "search",
      arguments: { query: "tidal power", sourceFilter: { excludeDomains: ["denied.test"] } },
    });
    const urls = (found.structuredContent as { results: { url: string }[] }).results.map((r) => r.url);
    expect(urls).toEqual(["https://www.allowed.test/a", "https://other.test/c"]);
  });
});

/** The first result of every search is on denied.test (a host no test may resolve). */
const firstResultDenied = (pageUrl: string, query: string) => {
  const n = Number(/\/page\/(\d+)$/.exec(pageUrl)?.[1]);
  return n === searchPages(query)[0] ? pageUrl.replace("127.0.0.1", "denied.test") : pageUrl;
};

describe("POST /v1/ask under a source filter", () => {
  it("searches and reads only within the filter it is given", async () => {
    world = await startResearchWorld({
      expectCalls: { "smtl-plan": 1, "smtl-step": 2, reader: 1 },
      resultUrl: firstResultDenied,
    });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    server = await startServer({ dossier, port: 0 });
    const pagesBefore = world.pageAnswers.length;
    const asked = await post("/v1/ask", {
      question: "Which topic grew by 11 percent in 2025?",
      sourceFilter: { excludeDomains: ["denied.test"] },
    });
    expect(asked.status).toBe(200);
    const answer = (await asked.json()) as { runId: string; answer: string };
    // The agent reads the first result it is shown: without the filter, page 2 on denied.test.
    expect(answer.answer).toMatch(/^Topic 3 \[1\]/);
    expect(world.pageAnswers.slice(pagesBefore).map((a) => a.page)).toEqual([3]);
    const events = await dossier.runs.events(answer.runId);
    expect(JSON.stringify(events)).not.toContain(`denied.test:${world.web.port}`);
    for (const r of world.search.requestsFor("searxng")) expect(r.query.q).toMatch(/ -site:denied\.test$/);
    expect((await dossier.runs.get(answer.runId)).options.sourceFilter).toEqual({
      excludeDomains: ["denied.test"],
    });
  });
});
