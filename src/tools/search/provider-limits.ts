/**
 * The limits the search providers set for themselves (calls at once, calls a second, retries),
 * read by the gateway as its per-provider defaults: from each table entry's `policy`, and arXiv's
 * pacing from its own adapter.
 */

import type { ProviderPolicy } from "../provider-policy.ts";
import { ARXIV_POLICY } from "./arxiv.ts";
import type { HttpSearchProviderEntry } from "./http-search-provider.ts";
import { OPENALEX_PROVIDER } from "./openalex.ts";
import { WEB_SEARCH_PROVIDERS } from "./web-provider-table.ts";

const ENTRIES: readonly Pick<HttpSearchProviderEntry, "name" | "policy">[] = [
  ...Object.values(WEB_SEARCH_PROVIDERS),
  OPENALEX_PROVIDER,
];

/** Gateway policies by search provider name, for the providers that have their own. */
export const SEARCH_PROVIDER_POLICIES: Readonly<Record<string, Partial<ProviderPolicy>>> = {
  ...Object.fromEntries(ENTRIES.flatMap((entry) => (entry.policy ? [[entry.name, entry.policy]] : []))),
  arxiv: ARXIV_POLICY,
};
