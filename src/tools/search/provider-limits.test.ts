import { describe, expect, it } from "vitest";
import { PROVIDER_DEFAULTS, ToolGateway } from "../gateway.ts";
import { ARXIV_POLICY } from "./arxiv.ts";
import { OPENALEX_PROVIDER } from "./openalex.ts";
import { SEARCH_PROVIDER_POLICIES } from "./provider-limits.ts";
import { WEB_SEARCH_PROVIDERS } from "./web-provider-table.ts";

describe("the search providers' own limits", () => {
  it("come from the entries (and arXiv's adapter) and are the gateway's defaults for those providers", () => {
    expect(SEARCH_PROVIDER_POLICIES).toEqual({
      searxng: WEB_SEARCH_PROVIDERS.searxng.policy,
      openalex: OPENALEX_PROVIDER.policy,
      arxiv: ARXIV_POLICY,
    });
    for (const [name, policy] of Object.entries(SEARCH_PROVIDER_POLICIES)) {
      expect(PROVIDER_DEFAULTS[name]).toBe(policy);
    }
    const gateway = new ToolGateway();
    // A self-hosted SearXNG starts at 16 calls at once and may grow to 64 while it keeps answering.
    expect(gateway.policyOf("searxng")).toMatchObject({ concurrency: 16, maxConcurrency: 64 });
    expect(gateway.policyOf("openalex").ratePerSecond).toBe(10);
    expect(gateway.policyOf("tavily").concurrency).toBe(4);
  });
});
