/**
 * Which sections a refresh rewrites, run with a fake writer and fake tools: a section citing a
 * changed or vanished page is stale, and so is one whose page a search still finds beside a page
 * no search of the report's runs returned; a section citing only unchanged, unreachable or local
 * sources is kept byte for byte. A stale section is written from its pages' current passages
 * (a changed page's old ones replaced, a vanished page's dropped) and the new pages found for it;
 * one with nothing left says so. The child's registry carries every source but a vanished one.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EventInput } from "../core/events.ts";
import { EvidenceRegistry } from "../core/evidence-registry.ts";
import type { Evidence, Source } from "../core/source.ts";
import { normalizeUrl } from "../core/url.ts";
import { emptyUsage } from "../core/usage.ts";
import type { FetchPageRequest, PageText } from "../kit/research-tools.ts";
import type { RunContext } from "../kit/run-context.ts";
import type { GenerateRequest } from "../llm/client.ts";
import type { SearchResult, ToolResult } from "../tools/types.ts";
import type { RefreshParent } from "./refresh-parent.ts";
import { splitSections } from "./refresh-sections.ts";
import { GONE_TEXT, runRefresh } from "./refresh-strategy.ts";

const NOW = Date.parse("2026-03-01T00:00:00.000Z");
const THEN = "2026-01-01T00:00:00.000Z";

const BODY = [
  "# Solar outlook",
  "",
  "Output held [1].",
  "",
  "## Steady",
  "",
  "Output held at 40 GW [1].",
  "",
  "## Moving",
  "",
  "Prices were 20 percent lower [2].",
  "",
  "## Gone",
  "",
  "Storage doubled [3].",
  "",
  "## Mixed",
  "",
  "Output held while storage doubled [1, 3].",
  "",
  "## Offline",
  "",
  "Grids were upgraded [4].",
  "",
  "## Found",
  "",
  "The found page says output grew [5].",
  "",
  "## Local",
  "",
  "Local notes agree [6, 8].",
  "",
].join("\n");

const web = (id: string, url: string): Source => ({ id, kind: "web", url, title: url, fetchedAt: THEN });
const SOURCES: Source[] = [
  web("S1", "https://a.org/steady"),
  web("S2", "https://b.org/moving"),
  web("S3", "https://c.org/gone"),
  web("S4", "https://d.org/offline"),
  web("S5", "https://e.org/found"),
  { id: "S6", kind: "local", path: "notes.md", title: "Notes", fetchedAt: THEN },
  web("S7", "https://u.org/uncited"),
  { ...web("S8", "https://arxiv.org/abs/2501.00001"), kind: "academic" },
];
const passage = (
  id: string,
  sourceId: string,
  text: string,
  tool = "fetch_page",
  query?: string,
): Evidence => ({
  id,
  sourceId,
  text,
  ...(query ? { query } : {}),
  retrievedBy: { tool, callId: `C-${id}` },
});
const STEADY = "Output held at 40 GW in 2025 across the whole region, the grid operator says.";
const MOVING_OLD = "Panel prices were 20 percent lower in 2025 than a year before.";
const MOVING_NOW = "Panel prices were 25 percent lower in 2025 than a year before, the new survey says.";
const FOUND_SNIPPET = "…the found page says output grew…";
const NEW_PAGE = "A new study finds output grew 30 percent in 2025 across the region.";
const EVIDENCE: Evidence[] = [
  passage("E1", "S1", STEADY),
  passage("E2", "S2", MOVING_OLD),
  passage("E3", "S3", "The gone page said storage doubled in the region last year."),
  passage("E4", "S4", "Grids were upgraded in every province during the year."),
  passage("E5", "S5", FOUND_SNIPPET, "web_search", "solar outlook"),
  passage("E6", "S6", "Local notes agree with the operator's figures for the year."),
  passage("E7", "S7", "An uncited page said something else entirely about the year."),
  passage("E8", "S8", "An abstract says the same of the year's output.", "academic_search", "solar papers"),
];

const parentOf = (body: string): RefreshParent => ({
  record: { id: "R-parent" } as RefreshParent["record"],
  version: 1,
  title: "Solar outlook",
  language: "en",
  body,
  sections: splitSections(body),
  sources: SOURCES,
  evidence: EVIDENCE,
  numberOf: new Map([...SOURCES.slice(0, 6).map((s, i): [string, number] => [s.id, i + 1]), ["S8", 8]]),
  evidenceByNumber: { 1: ["E1"], 2: ["E2"], 3: ["E3"], 4: ["E4"], 5: ["E5"], 6: ["E6"], 8: ["E8"] },
  searches: [{ query: "solar outlook", topK: 5 }, { query: "gone query" }],
  validators: new Map(),
  seenUrls: new Set(
    [...SOURCES.flatMap((s) => (s.url ? [s.url] : [])), "https://g.org/seen"].map(normalizeUrl),
  ),
});

const ok = <T>(value: T, callId: string): ToolResult<T> => ({
  ok: true,
  value,
  cached: false,
  provider: "fake",
  callId,
  latencyMs: 0,
});
const failed = (message: string): ToolResult<never> => ({
  ok: false,
  error: { code: "PROVIDER_ERROR", message, retryable: false },
  provider: "fake",
  callId: "C-fail",
  latencyMs: 0,
});
const result = (url: string, snippet = ""): SearchResult => ({ title: url, url, snippet });

/** Pages as served now: `changes` replaces some of them. */
function world(pages: Record<string, string | number>) {
  const fetched: string[] = [];
  const searched: string[] = [];
  const tools = {
    fetchPage: async (url: string, _request?: FetchPageRequest): Promise<ToolResult<PageText>> => {
      fetched.push(url);
      const page = pages[url];
      if (page === undefined) throw new Error(`unexpected fetch of ${url}`);
      if (typeof page === "number") return failed(`fetch ${url}: HTTP ${page}`);
      return ok({ url, finalUrl: url, title: `Now ${url}`, text: page }, `C-fetch-${fetched.length}`);
    },
    webSearch: async (query: string): Promise<ToolResult<SearchResult[]>> => {
      searched.push(query);
      if (query.startsWith("solar"))
        return ok(
          [
            result("https://www.e.org/found?utm_source=feed", FOUND_SNIPPET),
            result("https://g.org/seen"),
            result("https://f.org/new"),
            result("https://f2.org/empty"),
            result("https://f3.org/third"),
          ],
          "C-s1",
        );
      return ok([result("https://c.org/gone"), result("https://h.org/other")], "C-s2");
    },
  };
  return { tools: tools as never, fetched, searched };
}

const UNCHANGED: Record<string, string | number> = {
  "https://a.org/steady": `# Steady\n\n${STEADY}\n`,
  "https://b.org/moving": `${MOVING_OLD}\n`,
  "https://c.org/gone": "The gone page said storage doubled in the region last year.",
  "https://d.org/offline": "Grids were upgraded in every province during the year.",
  "https://e.org/found": "Intro.\n\nOn balance the found page says output grew over the year.",
};

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** A run context whose writer turns each passage it is given into a cited sentence. */
function context() {
  const dir = mkdtempSync(join(tmpdir(), "refresh-stale-"));
  dirs.push(dir);
  const events: EventInput[] = [];
  const prompts: string[] = [];
  const ctx = {
    runId: "R-child",
    query: "solar outlook",
    options: { concurrency: 2, reportPaths: [join(dir, "report.md")] },
    currentDate: "2026-03-01",
    clock: { now: () => NOW },
    usage: emptyUsage,
    evidence: new EvidenceRegistry(),
    emit: (event: EventInput) => {
      events.push(event);
      return event;
    },
    generate: async (request: GenerateRequest) => {
      const prompt = request.prompt ?? "";
      prompts.push(prompt);
      const cited = [...prompt.matchAll(/^\[(E\d+)\] (.*)$/gm)].map(([, id, text]) => `${text} [${id}]`);
      return { text: cited.join(" "), finishReason: "stop" };
    },
  };
  return { ctx: ctx as unknown as RunContext, events, prompts };
}

const sectionText = (body: string, title: string) =>
  splitSections(body).find((s) => s.title === title)?.text ?? `no section ${title}`;

describe("runRefresh: stale sections", () => {
  it("rewrites the sections citing a changed or vanished page or given a new page, keeping the rest", async () => {
    const { tools, fetched, searched } = world({
      ...UNCHANGED,
      "https://b.org/moving": `# Moving\n\n${MOVING_NOW}\n`,
      "https://c.org/gone": 404,
      "https://d.org/offline": 500,
      "https://f.org/new": `# New\n\n${NEW_PAGE}\n`,
      "https://f2.org/empty": "short",
    });
    const { ctx, prompts } = context();
    const out = await runRefresh(ctx, parentOf(BODY), tools, { refreshOf: "R-parent", version: 2 });

    expect(searched).toEqual(["solar outlook", "gone query"]);
    // Cited web pages, then the first two unseen results of a search still finding a page a
    // section cites; never a seen result, nor one of a search finding only a vanished page.
    expect(fetched).toEqual([
      "https://a.org/steady",
      "https://b.org/moving",
      "https://c.org/gone",
      "https://d.org/offline",
      "https://e.org/found",
      "https://f.org/new",
      "https://f2.org/empty",
    ]);
    expect(out.sectionsChanged).toEqual(["Moving", "Gone", "Mixed", "Found"]);
    expect(out.stopReason).toBe("completed");
    const body = out.report.body;
    for (const title of ["Introduction", "Steady", "Offline", "Local"]) {
      expect(sectionText(body, title)).toBe(sectionText(BODY, title));
    }
    expect(sectionText(body, "Moving")).toBe(`## Moving\n\n${MOVING_NOW} [2]\n\n`);
    expect(sectionText(body, "Gone")).toBe(`## Gone\n\n${GONE_TEXT}\n\n`);
    expect(sectionText(body, "Mixed")).toBe(`## Mixed\n\n${STEADY} [1]\n\n`);
    expect(sectionText(body, "Found")).toBe(`## Found\n\n${FOUND_SNIPPET} [5] ${NEW_PAGE} [9]\n\n`);
    // One writer call per stale section with evidence left, each given only its own passages.
    expect(prompts).toHaveLength(3);
    expect(prompts[0]).toContain(MOVING_NOW);
    expect(prompts[0]).not.toContain(MOVING_OLD);
    // The writer is told which section it writes and what the section said before.
    expect(prompts[0]).toContain('Write section 2 "Moving"');
    expect(prompts[0]).toContain(
      "Its earlier text, whose sources have changed: Prices were 20 percent lower.",
    );
    expect(prompts[1]).not.toContain("storage doubled in the region");
    expect(prompts[2]).not.toContain(STEADY);
  });

  it("carries every source but a vanished one, dating the re-checked ones, and replaces a changed page's passages", async () => {
    const { tools } = world({
      ...UNCHANGED,
      "https://b.org/moving": MOVING_NOW,
      "https://c.org/gone": 410,
      "https://d.org/offline": 503,
      "https://f.org/new": NEW_PAGE,
      "https://f2.org/empty": "short",
    });
    const { ctx, events } = context();
    const out = await runRefresh(ctx, parentOf(BODY), tools, { refreshOf: "R-parent", version: 2 });
    const sources: Source[] = events.flatMap((e) => (e.type === "source-add" ? [e.source as Source] : []));
    const iso = new Date(NOW).toISOString();
    expect(sources.map((s) => [s.url ?? s.path, s.fetchedAt, Boolean(s.contentHash)])).toEqual([
      ["https://a.org/steady", iso, true],
      ["https://b.org/moving", iso, true],
      ["https://d.org/offline", THEN, false],
      ["https://e.org/found", iso, true],
      ["notes.md", THEN, false],
      ["https://u.org/uncited", THEN, false],
      ["https://arxiv.org/abs/2501.00001", THEN, false],
      ["https://f.org/new", iso, true],
    ]);
    expect(sources.at(-1)).toMatchObject({ kind: "web", title: "Now https://f.org/new" });
    const evidence: Evidence[] = events.flatMap((e) =>
      e.type === "evidence-add" ? [e.evidence as Evidence] : [],
    );
    const byUrl = (url: string) => {
      const id = sources.find((s) => (s.url ?? s.path) === url)!.id;
      return evidence.filter((e) => e.sourceId === id).map((e) => [e.text, e.retrievedBy.tool]);
    };
    expect(byUrl("https://b.org/moving")).toEqual([[MOVING_NOW, "fetch_page"]]);
    expect(byUrl("https://f.org/new")).toEqual([[NEW_PAGE, "fetch_page"]]);
    expect(byUrl("https://d.org/offline")).toEqual([[EVIDENCE[3]!.text, "fetch_page"]]);
    expect(byUrl("https://u.org/uncited")).toEqual([[EVIDENCE[6]!.text, "fetch_page"]]);
    expect(evidence.some((e) => e.text === EVIDENCE[2]!.text || e.text === MOVING_OLD)).toBe(false);
    const current = evidence.find((e) => e.text === MOVING_NOW)!;
    expect(current).toMatchObject({
      query: "solar outlook",
      retrievedBy: { tool: "fetch_page", callId: "C-fetch-2" },
    });
    // A kept section's numbers point at the carried passages.
    const carried = (text: string) => evidence.find((e) => e.text === text)!.id;
    expect(out.report.evidenceByNumber[1]).toEqual([carried(STEADY)]);
    expect(out.report.evidenceByNumber[4]).toEqual([carried(EVIDENCE[3]!.text)]);
    expect(out.report.evidenceByNumber[6]).toEqual([carried(EVIDENCE[5]!.text)]);
    expect(out.report.evidenceByNumber[2]).toEqual([current.id]);
  });

  it("rewrites nothing and calls no writer when no cited page changed and no search found a new page", async () => {
    const { tools, fetched } = world({
      ...UNCHANGED,
      "https://d.org/offline": 500,
      "https://f.org/new": "short",
      "https://f2.org/empty": "short",
    });
    const { ctx, prompts } = context();
    const out = await runRefresh(ctx, parentOf(BODY), tools, {
      refreshOf: "R-parent",
      version: 2,
      maxSearches: 1,
    });
    expect(out.sectionsChanged).toEqual([]);
    expect(out.stopReason).toBe("unchanged");
    expect(out.report.body).toBe(BODY);
    expect(prompts).toEqual([]);
    expect(fetched.slice(5)).toEqual(["https://f.org/new", "https://f2.org/empty"]);
  });

  it("gives a new page to every section citing a page its search still finds, unless that page vanished", async () => {
    const body = "# T\n\nIntro [1, 5].\n\n## Found\n\nFound [5].\n\n## Gone\n\nGone [3].\n";
    const { tools, fetched } = world({
      ...UNCHANGED,
      "https://c.org/gone": 404,
      "https://f.org/new": NEW_PAGE,
      "https://f2.org/empty": "short",
      "https://f3.org/third": "short",
    });
    const { ctx } = context();
    const out = await runRefresh(
      ctx,
      {
        ...parentOf(body),
        searches: [{ query: "gone query" }, { query: "solar outlook" }, { query: "solar again" }],
      },
      tools,
      {
        refreshOf: "R-parent",
        version: 2,
      },
    );
    expect(out.sectionsChanged).toEqual(["Introduction", "Found", "Gone"]);
    expect(sectionText(out.report.body, "Introduction")).toBe(
      `# T\n\n${STEADY} [1] ${FOUND_SNIPPET} [5] ${NEW_PAGE} [9]\n\n`,
    );
    expect(sectionText(out.report.body, "Found")).toBe(
      `## Found\n\n${FOUND_SNIPPET} [5] ${NEW_PAGE} [9]\n\n`,
    );
    expect(sectionText(out.report.body, "Gone")).toBe(`## Gone\n\n${GONE_TEXT}\n`);
    expect(fetched).not.toContain("https://h.org/other");
    // A new page two searches return is read once.
    expect(fetched.filter((u) => u === "https://f.org/new")).toHaveLength(1);
  });
});
