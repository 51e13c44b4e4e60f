/**
 * The warp strategy end to end in the closed research world: through the CLI over the fake web
 * (search engine and pages), and over a local knowledge base with `--sources local-only`, which
 * must make no request to the web servers at all.
 */

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CallExpectations } from "../../../test/research/call-expectations.ts";
import type { ScriptRole } from "../../../test/research/model-script.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { dossierInWorld } from "../../../test/research/world-cli.ts";
import { citedNumbers } from "../../core/citations.ts";
import type { ReportDocument } from "../../core/report.ts";
import { computeProcessMetrics } from "../../eval/process/process-metrics.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A warp run of three sections and one expansion into two subsections, then TERMINATE. */
const warpCalls: CallExpectations<ScriptRole> = {
  "warp-search": 1 + 3 + 2,
  "warp-init": 1,
  "warp-write": 3 + 2,
  "warp-deepen": 2,
};

function expectFullyCited(report: ReportDocument, sourceIds: Set<string>) {
  const numbers = citedNumbers(report.body);
  expect(numbers.length).toBeGreaterThan(0);
  expect(Math.max(...numbers)).toBe(report.references.length);
  for (const ref of report.references) expect(sourceIds.has(ref.sourceId)).toBe(true);
  expect(report.checks.citations.dropped).toBe(0);
  expect(report.checks.headings.problems).toBe(0);
  expect(report.checks.groundedShare).toBeGreaterThan(0.5);
}

describe("warp in the research world", () => {
  it("`dossier research --strategy warp` writes a valid, fully cited report from the web", async () => {
    // By default each of the five drafted sections reads one page (a reader call each).
    world = await startResearchWorld({ expectCalls: { ...warpCalls, reader: 5 } });
    const run = await dossierInWorld(
      [
        "research",
        "How did battery costs and adoption change?",
        "--strategy",
        "warp",
        "--json",
        "--format",
        "md,json",
      ],
      world,
    );
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout.trim());
    expect(summary).toMatchObject({ strategy: "warp", status: "completed", stopReason: "completed" });
    const bundle = JSON.parse(readFileSync(summary.reportPaths[1], "utf8"));
    const report = { ...bundle, body: bundle.report.body } as ReportDocument;
    // The Markdown file is the report plus the claim check's one-line summary at its end.
    const written = readFileSync(summary.reportPaths[0], "utf8");
    expect(written.startsWith(bundle.report.markdown.trimEnd())).toBe(true);
    expect(written.slice(bundle.report.markdown.trimEnd().length)).toMatch(
      /^\n\n---\n\nClaim check \(lexical check\): \d+ cited claims — [^\n]*\.\n?$/,
    );
    expectFullyCited(report, new Set(report.sources.map((s) => s.id)));
    for (const ref of report.references)
      expect(ref.locator).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/page\/\d+$/);
    // Section 1 was expanded; its subsections follow it in document order.
    const headings = report.body.match(/^#{2,4} .+$/gm);
    expect(headings).toEqual([
      "## Costs and prices",
      "### Recent figures",
      "### Open questions",
      "## Supply and chemistry",
      "## Storage and grid",
    ]);
    // One request per distinct query: 2 survey keywords, 5 section titles, the question once (then cached).
    expect(world.search.requests.length).toBe(2 + 5 + 1);
  });

  it("with readPages, reads the best result per section and writes from its verbatim excerpts first", async () => {
    world = await startResearchWorld({ expectCalls: { ...warpCalls, reader: 5 } });
    const result = await world.research({
      query: "How did battery costs and adoption change?",
      strategy: "warp",
      strategyOptions: { readPages: 1 },
    });
    expect(result.record.status).toBe("completed");
    const report = result.outcome!.report;
    expectFullyCited(report, new Set(report.sources.map((s) => s.id)));
    // Each writer saw the page excerpts before the snippets, and cited them.
    for (const prompt of world.script.prompts["warp-write"]) {
      const first = /<passages>\n\[(E\d+)\]/.exec(prompt)![1]!;
      expect(report.evidence.find((e) => e.id === first)?.retrievedBy.tool).toBe("read_page");
    }
    const cited = new Set(Object.values(report.evidenceByNumber).flat());
    expect(report.evidence.some((e) => e.retrievedBy.tool === "read_page" && cited.has(e.id))).toBe(true);
    expect(world.web.requests.length).toBeGreaterThan(0);
  });

  it("on the web reads at least one page for every drafted section by default (event log)", async () => {
    world = await startResearchWorld({ expectCalls: { ...warpCalls, reader: 5 } });
    const result = await world.research({
      query: "How did battery costs and adoption change?",
      strategy: "warp",
    });
    expect(result.record.status).toBe("completed");
    const drafted = result.events.flatMap((e) => (e.type === "section-written" ? [e.sectionId] : []));
    expect(drafted).toEqual(["1", "2", "3", "1.1", "1.2"]);
    for (const id of drafted) {
      const reads = result.events.filter(
        (e) => e.type === "tool-end" && e.tool === "crawl_page" && e.ok && e.scope === `section:${id}`,
      );
      expect(reads.length, `pages read for section ${id}`).toBeGreaterThanOrEqual(1);
    }
    // The survey before the outline reads nothing; no page is read twice while unread ones remain.
    const starts = result.events.flatMap((e) =>
      e.type === "tool-start" && e.tool === "crawl_page" ? [e] : [],
    );
    expect(starts.every((e) => e.scope?.startsWith("section:"))).toBe(true);
    const urls = starts.map((e) => (e.args as { url: string }).url);
    expect(new Set(urls).size).toBe(urls.length);
    // Each writer was given the excerpts of its page, and the report cites read pages.
    const report = result.outcome!.report;
    for (const prompt of world.script.prompts["warp-write"]) {
      const first = /<passages>\n\[(E\d+)\]/.exec(prompt)![1]!;
      expect(report.evidence.find((e) => e.id === first)?.retrievedBy.tool).toBe("read_page");
    }
    expectFullyCited(report, new Set(report.sources.map((s) => s.id)));
  });

  it("with academic search configured, every keyword of every SEARCH also goes to academic search", async () => {
    world = await startResearchWorld({
      expectCalls: { ...warpCalls, reader: 5 },
      config: { academic: ["openalex"] },
    });
    const result = await world.research(
      { query: "How did battery costs and adoption change?", strategy: "warp" },
      { env: { OPENALEX_BASE_URL: world.search.baseUrl("openalex") } },
    );
    expect(result.record.status).toBe("completed");
    // Every keyword of every SEARCH action went to web search and to academic search.
    const starts = result.events.flatMap((e) => (e.type === "tool-start" ? [e] : []));
    const queries = (tool: string) =>
      starts.filter((e) => e.tool === tool).map((e) => (e.args as { query: string }).query);
    expect(queries("academic_search").length).toBeGreaterThan(0);
    expect(new Set(queries("academic_search"))).toEqual(new Set(queries("web_search")));
    const ends = result.events.filter((e) => e.type === "tool-end" && e.tool === "academic_search");
    expect(ends.every((e) => e.type === "tool-end" && e.ok)).toBe(true);
    const report = result.outcome!.report;
    expectFullyCited(report, new Set(report.sources.map((s) => s.id)));
  });

  it("when every search fails: sections without evidence are left out, no deepening, and the run fails with NO_EVIDENCE", async () => {
    world = await startResearchWorld({
      searchFailsWith: 500,
      expectCalls: { "warp-search": 4, "warp-init": 1 },
    });
    const result = await world.research({ query: "How did battery costs change?", strategy: "warp" });
    expect(result.record).toMatchObject({ status: "failed", error: { code: "NO_EVIDENCE" } });
    const warnings = result.events.flatMap((e) => (e.type === "warning" ? [e.code] : []));
    expect(warnings).toEqual(["NO_EVIDENCE", "NO_EVIDENCE", "NO_EVIDENCE"]);
    const stop = result.events.filter((e) => e.type === "decision").at(-1);
    expect(stop).toMatchObject({ reason: "nothing was written: no evidence to deepen" });
    expect(result.outcome!.report.references).toEqual([]);
  });

  it("--sources local-only runs on the local knowledge base and makes no web request", async () => {
    world = await startResearchWorld({ expectCalls: warpCalls });
    const docs = join(world.home, "docs");
    mkdirSync(docs);
    writeFileSync(
      join(docs, "batteries.md"),
      [
        "# Battery notes",
        "",
        "## Costs and prices",
        "",
        "Battery pack prices fell to 115 dollars per kilowatt hour in 2024 according to the annual survey.",
        "",
        "## Supply and chemistry",
        "",
        "Sodium-ion batteries entered mass production as an alternative chemistry for cheaper vehicles.",
      ].join("\n"),
    );
    writeFileSync(
      join(docs, "grid.md"),
      "# Grid\n\n## Storage and grid\n\nGrid-scale battery storage installations doubled in 2024 as battery prices fell.\n",
    );
    const result = await world.research({
      query: "How did battery prices change and what followed?",
      strategy: "warp",
      sources: "local-only",
      docs,
    });
    expect(result.record.status).toBe("completed");
    expect(world.search.requests).toHaveLength(0);
    expect(world.web.requests).toHaveLength(0);
    const tools = new Set(result.events.flatMap((e) => (e.type === "tool-start" ? [e.tool] : [])));
    expect([...tools]).toEqual(["local_search"]);
    const report = result.outcome!.report;
    const added = new Set(
      result.events.flatMap((e) => (e.type === "source-add" ? [(e.source as { id: string }).id] : [])),
    );
    expectFullyCited(report, added);
    // The log feeds the process metrics like any strategy's.
    expect(computeProcessMetrics(result.events)).toMatchObject({ report: { headingErrors: 0 } });
    for (const ref of report.references) {
      expect(ref.kind).toBe("local");
      expect(ref.locator).toMatch(/^(batteries|grid)\.md#[a-z-]+$/);
    }
  });

  it("--estimate knows warp's call structure; --force-expand and --max-expansions reach the strategy", async () => {
    world = await startResearchWorld({ expectCalls: {} });
    const estimate = async (...flags: string[]) => {
      const out = await dossierInWorld(
        ["research", "How did battery costs change?", "--strategy", "warp", "--estimate", "--json", ...flags],
        world!,
      );
      expect(out.code).toBe(0);
      return JSON.parse(out.stdout) as { strategy: string; llmCalls: [number, number] };
    };
    // Searches 1 + leaves, 1 outline, a write and a page read per leaf, 1-12 decisions; leaves
    // 3-12 plus 2-7 per expansion, as many as the step cap of 140 policy calls allows (63).
    expect(await estimate()).toMatchObject({
      strategy: "warp",
      llmCalls: [4 + 1 + 3 + 3 + 1, 64 + 1 + 63 + 63 + 12],
    });
    expect(await estimate("--max-expansions", "0")).toMatchObject({
      llmCalls: [4 + 1 + 3 + 3, 13 + 1 + 12 + 12],
    });
    // Forced: exactly 2 decisions, 3 drafts each judged on 7-20 rubric items, one rubric.
    expect(await estimate("--force-expand", "2")).toMatchObject({
      llmCalls: [8 + 1 + 7 + 7 + 2 + 1 + 21, 27 + 1 + 26 + 26 + 2 + 1 + 60],
    });
    const bad = await dossierInWorld(
      ["research", "How did battery costs change?", "--strategy", "warp", "--max-expansions", "13"],
      world,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("maxExpansions");
    expect(world.model.requests).toHaveLength(0);
  });
});
