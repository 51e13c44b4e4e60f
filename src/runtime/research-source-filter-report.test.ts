/**
 * A run states the source filter it applied: in its stored options, as a notice event, and in
 * its report's notice. The configuration's filter is the default; a run's own replaces it.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type FakeSearch, startFakeSearch } from "../../test/fake-search/index.ts";
import type { DossierEvent } from "../core/events.ts";
import { createOutline } from "../core/outline.ts";
import { recordSearchResults } from "../kit/evidence-recorder.ts";
import { assembleReport } from "../kit/report-assembly.ts";
import type { StrategyDefinition } from "../strategies/types.ts";
import type { SourceFilterInput } from "../tools/source-filter.ts";
import { createDossier } from "./dossier.ts";

/** A strategy without a model: one web search, then a one-line report naming what it found. */
const probe: StrategyDefinition<Record<string, never>> = {
  name: "probe",
  description: "searches once",
  optionsSchema: z.object({}).strict(),
  roles: [],
  capabilities: { needsModel: false, web: true, local: false },
  estimate: () => ({ llm: [], tools: [1, 1] }),
  async run(ctx, input) {
    const found = await input.tools.webSearch("tidal power", { topK: 5 });
    if (found.ok) recordSearchResults(ctx, found.value, "tidal power", found.callId);
    const urls = found.ok ? found.value.map((r) => r.url).join(" ") : found.error.code;
    const report = assembleReport(ctx, {
      title: "Probe",
      outline: createOutline([{ title: "Found", plan: "what the search found" }]),
      language: input.language,
      parts: [{ text: `## Found\n\nFound: ${urls || "nothing"}.`, allowed: new Set() }],
      stopReason: "completed",
    });
    return { stopReason: "completed", report };
  },
};

let fake: FakeSearch;
const roots: string[] = [];
beforeEach(async () => {
  fake = await startFakeSearch({
    results: [
      { title: "A", url: "https://www.allowed.org/a", snippet: "Tidal power output rose in the pilot year." },
      { title: "B", url: "https://other.com/b", snippet: "Tidal turbines were installed in the bay." },
    ],
  });
});
afterEach(async () => {
  await fake.close();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

async function run(configFilter: SourceFilterInput | undefined, runFilter: SourceFilterInput | undefined) {
  const root = mkdtempSync(join(tmpdir(), "dossier-filter-report-"));
  roots.push(root);
  const dossier = createDossier({
    env: { DOSSIER_HOME: join(root, ".dossier") },
    cwd: root,
    config: {
      search: ["searxng"],
      searxngUrl: fake.baseUrl("searxng"),
      ...(configFilter ? { sourceFilter: configFilter } : {}),
    },
    strategies: [probe as StrategyDefinition<never>],
  });
  const events: DossierEvent[] = [];
  try {
    const result = await dossier.research("What is tidal power?", {
      strategy: "probe",
      ...(runFilter ? { sourceFilter: runFilter } : {}),
      onEvent: (e) => events.push(e),
    }).done;
    return { result, events };
  } finally {
    await dossier.close();
  }
}

const NOTICE =
  "Web sources were filtered: only the domains allowed.org; only sources published since 2024-01-01 (where the date is known).";

describe("the report states the source filter", () => {
  it("a run's filter: in the options, a notice event, the report's notice and its Markdown", async () => {
    const { result, events } = await run(undefined, { domains: ["Allowed.org"], since: "2024-01-01" });
    expect(result.error?.message ?? result.status).toBe("completed");
    expect(result.record.options).toMatchObject({
      sourceFilter: { domains: ["allowed.org"], since: "2024-01-01" },
    });
    expect(events).toContainEqual(
      expect.objectContaining({ type: "warning", code: "NOTICE", message: NOTICE }),
    );
    expect(result.report!.notice).toBe(NOTICE);
    expect(result.markdown).toContain(`> ${NOTICE}`);
    expect(result.markdown).toContain("Found: https://www.allowed.org/a.");
    expect(fake.requestsFor("searxng")[0]!.query.q).toBe("tidal power site:allowed.org");
  });

  it("the configuration's filter is the default; a run's empty filter lifts it", async () => {
    const byConfig = await run({ excludeDomains: ["allowed.org"] }, undefined);
    expect(byConfig.result.status).toBe("completed");
    expect(byConfig.result.report!.notice).toBe("Web sources were filtered: excluding allowed.org.");
    expect(byConfig.result.markdown).toContain("Found: https://other.com/b.");
    const lifted = await run({ excludeDomains: ["allowed.org"] }, {});
    expect(lifted.result.report!.notice).toBeUndefined();
    expect(lifted.result.markdown).toContain("Found: https://www.allowed.org/a https://other.com/b.");
  });
});
