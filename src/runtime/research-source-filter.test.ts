/**
 * A run's source filter, end to end below the strategy: every web search provider gets it, every
 * page fetch and page read refuses what it does not allow (no request reaches another host), and
 * bad filters are refused by the request, the CLI, the API body and the MCP input before any
 * call is made.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeSearch, type FakeSearchResult, startFakeSearch } from "../../test/fake-search/index.ts";
import { type FakeWeb, startFakeWeb } from "../../test/fake-web/index.ts";
import { instantClock } from "../../test/scripted/clocks.ts";
import { sourceFilterFromFlags } from "../cli/commands/research-flags.ts";
import type { LlmClient } from "../llm/client.ts";
import { deepResearchInputSchema } from "../mcp/research-tool.ts";
import { createRunBodySchema } from "../server/schemas.ts";
import { ToolGateway } from "../tools/gateway.ts";
import { createAcademicProviders } from "../tools/search/academic-providers.ts";
import {
  createSearchProvider,
  SEARCH_PROVIDER_NAMES,
  type SearchProviderName,
} from "../tools/search/providers.ts";
import { type SourceFilterInput, sourceFilterSchema } from "../tools/source-filter.ts";
import { createDossier } from "./dossier.ts";
import { parseResearchRequest } from "./research.ts";
import { createResearchTools } from "./research-tools.ts";

let web: FakeWeb;
let fake: FakeSearch;
beforeAll(async () => {
  web = await startFakeWeb();
  await import("jsdom");
}, 60_000);
afterAll(() => web.close());

const results = (): FakeSearchResult[] => [
  { title: "Allowed", url: `http://www.allowed.test:${web.port}/article`, snippet: "s" },
  { title: "Other", url: `http://other.test:${web.port}/article`, snippet: "s" },
  { title: "Denied", url: `http://denied.test:${web.port}/article`, snippet: "s" },
];
beforeEach(async () => {
  fake = await startFakeSearch({ results: results() });
});
afterEach(async () => {
  await fake.close();
});

const at = (host: string) => `http://${host}:${web.port}/article`;
const hostsAsked = (from: number) => web.requests.slice(from).map((r) => r.host.replace(/:\d+$/, ""));

function tools(provider: SearchProviderName, filter: SourceFilterInput) {
  return createResearchTools({
    gateway: new ToolGateway({ clock: instantClock(), defaults: { cacheTtlMs: 0 } }),
    llm: {} as LlmClient,
    sources: "web",
    searchProviders: [createSearchProvider(provider, { apiKey: "k", baseUrl: fake.baseUrl(provider) })],
    academicProviders: createAcademicProviders({}, ["openalex"], {
      providerBaseUrls: { openalex: fake.baseUrl("openalex") },
    }),
    allowPrivateNetwork: false,
    sourceFilter: sourceFilterSchema.parse(filter),
    fetchOptions: {
      resolve: async () => [{ address: "127.0.0.1", family: 4 }],
      isAllowed: (_address, hostname) => hostname.endsWith(".test"),
    },
  });
}

describe("a run's tools under an allow list", () => {
  it.each(SEARCH_PROVIDER_NAMES)(
    "%s: searching, fetching and reading ask no host outside the list",
    async (name) => {
      const t = tools(name, { domains: ["allowed.test"] });
      const before = web.requests.length;
      const found = await t.webSearch("tidal power", { topK: 5 });
      expect(found.ok && found.value.map((r) => r.url)).toEqual([at("www.allowed.test")]);
      // Every page the search returned, and the others a model might name, go through the filter.
      const outcomes = [];
      for (const url of results().map((r) => r.url)) {
        outcomes.push(await t.fetchPage!(url));
        outcomes.push(await t.readPage(url, "tidal output"));
      }
      expect(outcomes.map((o) => (o.ok ? "ok" : o.error.code))).toEqual([
        "ok",
        // The reader model is not configured here: the allowed page is fetched, then the read fails.
        expect.not.stringMatching(/SOURCE_FILTERED/),
        "SOURCE_FILTERED",
        "SOURCE_FILTERED",
        "SOURCE_FILTERED",
        "SOURCE_FILTERED",
      ]);
      expect(new Set(hostsAsked(before))).toEqual(new Set(["www.allowed.test"]));
      expect(fake.requests.map((r) => r.provider)).toEqual([name]);
    },
  );

  it("academic search results outside the list are dropped (the provider's API itself is asked)", async () => {
    const t = tools("searxng", { domains: ["allowed.test"] });
    const papers = await t.academicSearch("tidal power", { topK: 5 });
    expect(papers.ok && papers.value.map((p) => p.url)).toEqual([at("www.allowed.test")]);
    expect(fake.requestsFor("openalex")).toHaveLength(1);
  });
});

describe("a run's tools under a deny list", () => {
  it("no request reaches the denied host; the others are used", async () => {
    const t = tools("tavily", { excludeDomains: ["denied.test"] });
    const before = web.requests.length;
    const found = await t.webSearch("tidal power", { topK: 5 });
    expect(found.ok && found.value.map((r) => r.url)).toEqual([at("www.allowed.test"), at("other.test")]);
    expect(fake.requestsFor("tavily")[0]!.body).toMatchObject({ exclude_domains: ["denied.test"] });
    const denied = await t.fetchPage!(at("denied.test"));
    expect(denied).toMatchObject({ ok: false, error: { code: "SOURCE_FILTERED" } });
    expect((await t.fetchPage!(at("other.test"))).ok).toBe(true);
    expect(hostsAsked(before)).toEqual(["other.test"]);
  });
});

const BAD: [string, SourceFilterInput, string][] = [
  ["21 domains", { domains: Array.from({ length: 21 }, (_, i) => `d${i}.org`) }, "at most 20 domains"],
  ["an invalid host", { excludeDomains: ["https://x.com/path"] }, "is not a host name"],
  ["a future date", { since: "2999-01-01" }, "the date is in the future"],
  ["a domain in both lists", { domains: ["a.org"], excludeDomains: ["A.org"] }, "is both allowed"],
];

describe("a bad filter is refused before any call", () => {
  it.each(BAD)("%s: by the request, the API body and the MCP input", (_what, sourceFilter, message) => {
    expect(() => parseResearchRequest({ query: "What is tidal power?", sourceFilter })).toThrow(message);
    for (const schema of [createRunBodySchema, deepResearchInputSchema]) {
      const parsed = schema.safeParse({ question: "What is tidal power?", sourceFilter });
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues[0]!.message).toContain(message);
      expect(parsed.error!.issues[0]!.path[0]).toBe("sourceFilter");
    }
  });

  it("by the CLI flags, naming the flag", () => {
    const flags = (extra: object) => ({ ...extra }) as Parameters<typeof sourceFilterFromFlags>[0];
    expect(() => sourceFilterFromFlags(flags({ domains: BAD[0]![1].domains!.join(",") }))).toThrow(
      "--domains: at most 20 domains",
    );
    expect(() => sourceFilterFromFlags(flags({ excludeDomains: "x.com,bad host" }))).toThrow(
      '--exclude-domains: "bad host" is not a host name',
    );
    expect(() => sourceFilterFromFlags(flags({ since: "2999-01-01" }))).toThrow(
      "--since: the date is in the future",
    );
    expect(() => sourceFilterFromFlags(flags({ domains: "a.org", excludeDomains: "a.org" }))).toThrow(
      '--exclude-domains: "a.org" is both allowed',
    );
    expect(sourceFilterFromFlags(flags({ domains: "Bücher.de, b.com", since: "2024-01-01" }))).toEqual({
      domains: ["xn--bcher-kva.de", "b.com"],
      since: "2024-01-01",
    });
    expect(sourceFilterFromFlags(flags({}))).toBeUndefined();
  });

  it.each(BAD)(
    "%s: a library run is refused and no search provider is asked",
    async (_what, sourceFilter, message) => {
      const root = mkdtempSync(join(tmpdir(), "dossier-filter-"));
      const dossier = createDossier({
        env: { DOSSIER_HOME: join(root, ".dossier") },
        cwd: root,
        config: { search: ["searxng"], searxngUrl: fake.baseUrl("searxng") },
      });
      try {
        const outcome = await dossier
          .research("What is tidal power?", { strategy: "offline", sourceFilter })
          .done.then(
            (r) => r.error,
            (e: unknown) => e,
          );
        expect(outcome).toMatchObject({ code: "INPUT_INVALID", message: expect.stringContaining(message) });
        expect(() => dossier.estimate("What is tidal power?", { sourceFilter })).toThrow(message);
        expect(fake.requests).toHaveLength(0);
      } finally {
        await dossier.close();
        rmSync(root, { recursive: true, force: true });
      }
    },
  );
});
