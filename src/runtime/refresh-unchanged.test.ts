/**
 * A refresh right after a run, nothing having changed, in a loopback world that makes it hard:
 * pages send no validators (every cited page is read in full again) and their text comes back
 * escaping Markdown, search snippets are cut mid-word across paragraphs and plain, a search answers
 * more results than the run keeps, and one page is found under a URL per query (a tracking
 * parameter) of which the run registers only the first. The refresh rewrites nothing, calls no
 * model, reports every cited page unchanged and no page new — a first refresh that asks none of
 * the searches again (every cited snippet is looked for in its page's escaped text) and a refresh
 * of that refresh that asks all of them (the searches of the whole chain: snippets are compared
 * with the snippets served now, and every result is one the run saw).
 */

import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import {
  cutSnippet,
  MARKDOWN_PAGES,
  perSourceSections,
  REFRESH_PARENT,
  trackedResultUrl,
} from "../../test/research/refresh-answers.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import type { EventOf } from "../core/events.ts";
import { normalizeUrl } from "../core/url.ts";
import { createDossier, type Dossier } from "./dossier.ts";
import { refresh } from "./refresh.ts";
import type { ReportDiff } from "./refresh-diff.ts";

let world: ResearchWorld | undefined;
let dossier: Dossier | undefined;
afterEach(async () => {
  await dossier?.close();
  await world?.close();
  dossier = undefined;
  world = undefined;
});

const readDiff = (path: string) => JSON.parse(readFileSync(path, "utf8")) as ReportDiff;

describe("refresh with nothing changed", () => {
  it("rewrites nothing and calls no model though pages escape Markdown and searches return more", async () => {
    world = await startResearchWorld({
      subtasks: 4,
      override: perSourceSections,
      expectCalls: REFRESH_PARENT,
      pages: MARKDOWN_PAGES,
      validators: false,
      searchResults: 8,
      snippet: cutSnippet,
      resultUrl: trackedResultUrl,
    });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    const parent = await dossier.research("How is topic adoption changing?", { strategy: "minddr" }).done;
    expect(parent.status).toBe("completed");
    const report = parent.report!;
    const events = await dossier.runs.events(parent.runId);

    // The world is as hard as it says. Cited passages include plain cut snippets and excerpts of
    // the page text as the fetcher escaped it.
    const cited = new Set(Object.values(report.evidenceByNumber).flat());
    const citedEvidence = report.evidence.filter((e) => cited.has(e.id));
    const snippets = citedEvidence.filter((e) => e.retrievedBy.tool === "web_search");
    expect(snippets.length).toBeGreaterThan(0);
    for (const e of snippets) expect(e.text).toMatch(/^….*\*\*.*…$|^….*\[\d+\].*…$/);
    expect(report.evidence.some((e) => e.retrievedBy.tool !== "web_search" && /\\\[5\\\]/.test(e.text))).toBe(
      true,
    );
    // Every search asked for 5, answered 8, kept 5; a page has a URL per query and the run
    // registered one of them: it saw result URLs that are no source of it.
    const searchEnds = events.filter(
      (e): e is EventOf<"tool-end"> => e.type === "tool-end" && e.tool === "web_search",
    );
    expect(searchEnds.length).toBe(4);
    for (const e of searchEnds) expect(e.urls).toHaveLength(5);
    const sourceUrls = new Set(report.sources.flatMap((s) => (s.url ? [s.url] : [])));
    expect(searchEnds.flatMap((e) => e.urls ?? []).some((u) => !sourceUrls.has(u))).toBe(true);

    world.script.expectCalls(REFRESH_PARENT); // not one call more, in either refresh
    const modelCalls = world.model.requests.length;
    const searched = world.search.requests.length;
    const fetched = world.pageAnswers.length;
    const v2 = await refresh(dossier, parent.runId, { maxSearches: 0 });
    expect(v2).toMatchObject({ status: "completed", version: 2, sectionsChanged: [] });
    expect(v2.report!.body).toBe(report.body);
    const cites = new Set(report.references.map((r) => normalizeUrl(r.locator)));
    // No validators: each cited page is read in full, once; no other page is read.
    expect(world.pageAnswers.slice(fetched).map((a) => a.status)).toEqual([...cites].map(() => 200));
    expect(world.search.requests.length).toBe(searched);
    const diff2 = readDiff(v2.diffPaths[1]!);
    expect(diff2).toMatchObject({ sectionsChanged: [], claimsAdded: [], claimsRemoved: [] });
    expect(diff2.pages.map((p) => p.state)).toEqual([...cites].map(() => "unchanged"));

    // The refresh of the refresh asks all four searches of the chain again.
    const v3 = await refresh(dossier, v2.runId);
    expect(v3).toMatchObject({ status: "completed", version: 3, sectionsChanged: [] });
    expect(world.search.requests.length - searched).toBe(4);
    expect(v3.report!.body).toBe(report.body);
    const diff3 = readDiff(v3.diffPaths[1]!);
    expect(diff3.pages.map((p) => p.state)).toEqual([...cites].map(() => "unchanged"));
    expect(world.pageAnswers.length - fetched).toBe(2 * cites.size);
    // Not one model call since the run's own (the strict script fails the test on any other).
    expect(world.model.requests.length).toBe(modelCalls);
  });
});
