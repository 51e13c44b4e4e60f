/**
 * `academic_search` as a research tool: available only when academic providers are configured
 * and the run may use the web; as an agent action it records each paper's abstract as evidence
 * retrieved by `academic_search`.
 */

import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeSearch, startFakeSearch } from "../../test/fake-search/index.ts";
import { instantClock } from "../../test/scripted/clocks.ts";
import { EvidenceRegistry } from "../core/evidence-registry.ts";
import type { RunContext } from "../kit/run-context.ts";
import { actionSchemaFor, describeAction, runAction } from "../kit/search-actions.ts";
import type { LlmClient } from "../llm/client.ts";
import { schemaOutline } from "../llm/schema-outline.ts";
import { schemaToJson } from "../llm/structured-mode.ts";
import { callNames, callSchemaFor, toAction } from "../strategies/smtl/protocol.ts";
import { ToolGateway } from "../tools/gateway.ts";
import { createAcademicProviders } from "../tools/search/academic-providers.ts";
import { createSearchProvider } from "../tools/search/providers.ts";
import type { ResearchToolsOptions } from "./research-tools.ts";
import { createResearchTools } from "./research-tools.ts";

// The Atom parser (jsdom) loads on first use; load it before the timed tests on a busy machine.
beforeAll(async () => {
  await import("jsdom");
}, 60_000);

let fake: FakeSearch;
beforeEach(async () => {
  fake = await startFakeSearch();
});
afterEach(async () => {
  await fake.close();
});

function tools(sources: ResearchToolsOptions["sources"], academic = true, web = true) {
  return createResearchTools({
    gateway: new ToolGateway({ clock: instantClock() }),
    llm: {} as LlmClient,
    sources,
    searchProviders: web ? [createSearchProvider("searxng", { baseUrl: fake.baseUrl("searxng") })] : [],
    ...(academic
      ? {
          academicProviders: createAcademicProviders({}, ["arxiv"], {
            providerBaseUrls: { arxiv: fake.baseUrl("arxiv") },
          }),
        }
      : {}),
    allowPrivateNetwork: true,
  });
}

describe("academic_search among a run's research tools", () => {
  it("is available when configured and the run may use the web, never otherwise", () => {
    expect(tools("web").available).toEqual(["web_search", "read_page", "academic_search"]);
    expect(tools("both").available).toContain("academic_search");
    expect(tools("web", false).available).toEqual(["web_search", "read_page"]);
    expect(tools("local").available).not.toContain("academic_search");
    expect(tools("local-only").available).toEqual([]);
    // Academic providers alone still give the paper search and page reading.
    expect(tools("web", true, false).available).toEqual(["read_page", "academic_search"]);
  });

  it("answers a structured failure without any request when it is not available", async () => {
    const r = await tools("local-only").academicSearch("attention");
    expect(r).toMatchObject({ ok: false, error: { code: "INPUT_INVALID", retryable: false } });
    expect(fake.requests).toHaveLength(0);
  });

  it("searches the configured provider through the gateway", async () => {
    const r = await tools("web").academicSearch("attention", { topK: 1, timeRange: "year" });
    expect(r.ok && r.value.map((p) => p.title)).toEqual(["Attention Is All You Need"]);
    expect(fake.requestsFor("arxiv")[0]?.query.search_query).toMatch(/^all:attention AND submittedDate:\[/);
  });
});

describe("academic_search as an agent action", () => {
  it("is in the action schema, whose prompt outline is the agent's tool list", () => {
    const schema = actionSchemaFor(["web_search", "academic_search"]);
    const action = schema.parse({ tool: "academic_search", query: "protein folding", timeRange: "year" });
    expect(describeAction(action)).toBe('academic_search "protein folding" (year)');
    const outline = schemaOutline(schemaToJson(schema));
    expect(outline).toContain(
      '| { // search scholarly papers; returns titles, authors, abstracts and paper URLs\n    tool: "academic_search"',
    );
    expect(outline).toContain('| { // search the web\n    tool: "web_search"');
  });

  it("is a call of the smtl protocol, run as the same research action", () => {
    const call = callSchemaFor(["web_search", "academic_search"]).parse({
      tool: "academic_search",
      query: "x y",
    });
    expect(toAction(call)).toEqual({ tool: "academic_search", query: "x y" });
    expect(callNames(["read_page", "academic_search"])).toEqual(["crawl_page", "academic_search"]);
  });

  it("records each abstract as evidence retrieved by academic_search and lists titles with authors", async () => {
    const clock = instantClock();
    const evidence = new EvidenceRegistry();
    const ctx = { evidence, emit: () => {}, clock } as unknown as RunContext;
    const observation = await runAction(
      ctx,
      tools("web"),
      { tool: "academic_search", query: "attention" },
      3,
    );
    expect(observation.ok).toBe(true);
    // The result became evidence, so it is shown once: its id, title with authors, and URL.
    expect(observation.lines).toEqual([]);
    expect(observation.evidence).toHaveLength(1);
    expect(observation.heads).toEqual({
      [observation.evidence[0]!.id]:
        "Attention Is All You Need (Ashish Vaswani, Noam Shazeer) — https://arxiv.org/abs/1706.03762v7",
    });
    expect(observation.evidence[0]).toMatchObject({
      text: "The dominant sequence transduction models are based on complex recurrent networks.",
      query: "attention",
      retrievedBy: { tool: "academic_search" },
    });
    const source = evidence.getSource(observation.evidence[0]!.sourceId);
    expect(source).toMatchObject({
      kind: "web",
      url: "https://arxiv.org/abs/1706.03762v7",
      title: "Attention Is All You Need",
      publishedAt: "2017-06-12T17:57:34.000Z",
    });
  });
});
